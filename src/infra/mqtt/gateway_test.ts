import assert from "node:assert/strict";
import { backoffDelay } from "./gateway.ts";

Deno.test("reconnect backoff doubles from 250 ms up to 15 s, with ±20% jitter", () => {
  const mid = () => 0.5;
  assert.deepEqual([0, 1, 2, 3].map((n) => backoffDelay(n, mid)), [250, 500, 1000, 2000]);
  assert.equal(backoffDelay(20, mid), 15_000);
  assert.equal(backoffDelay(0, () => 0), 200);
  assert.equal(backoffDelay(0, () => 1), 300);
});
