import assert from "node:assert/strict";
import { parseCsv, parseImport } from "./csv.ts";

Deno.test("csv: quoted fields, escaped quotes, CRLF and a BOM", () => {
  assert.deepEqual(parseCsv('\ufeffa,b\r\n"x,1","say ""hi"""\n\nz,\n'), [
    ["a", "b"],
    ["x,1", 'say "hi"'],
    [""],
    ["z", ""],
  ]);
});

Deno.test("csv: import rows keep good rows and report bad ones with their row number", () => {
  const parsed = parseImport("SKU,serial,hwRevision\nA,S-1,r2\n,,\nB,,r1\n,bad serial!,\n,S-2,\n");
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.rows, [
    { row: 1, serial: "S-1", sku: "A", hwRevision: "r2" },
    { row: 5, serial: "S-2", sku: undefined, hwRevision: undefined },
  ]);
  assert.deepEqual(parsed.errors.map((e) => e.row), [3, 4]);
});

Deno.test("csv: a header without serial is refused", () => {
  assert.deepEqual(parseImport("sku\nA\n"), {
    ok: false,
    error: "CSV header must name a serial column",
  });
  assert.equal(parseImport("").ok, false);
});
