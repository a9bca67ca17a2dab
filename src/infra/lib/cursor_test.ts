import assert from "node:assert/strict";
import { decodeCursor, encodeCursor } from "./cursor.ts";

Deno.test("a cursor round-trips its anchor exactly, microseconds included", () => {
  const anchor = {
    createdAt: "2026-11-22T05:00:00.123456Z",
    id: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
  };
  assert.deepEqual(decodeCursor(encodeCursor(anchor)), anchor);
});

Deno.test("malformed cursors decode to null", () => {
  for (const bad of ["", "!!!", "bm90IGEgY3Vyc29y", encodeCursor({ createdAt: "x", id: "y" })]) {
    assert.equal(decodeCursor(bad), null, bad);
  }
});
