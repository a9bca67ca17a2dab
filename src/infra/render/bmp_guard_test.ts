import { assertEquals } from "../../../tests/helpers/assert.ts";
import { shortBmp } from "../../../tests/helpers/bombs.ts";
import { guardBmp } from "./bmp_guard.ts";
import { renderImageBitmaps } from "./bitmaps.ts";

/** A complete 24-bit BMP of `width` x `height`, every pixel `grey`. */
function bmp(width: number, height: number, grey = 0): Uint8Array {
  const row = Math.ceil((width * 3) / 4) * 4;
  const out = shortBmp(width, height, row * height + 12);
  out.fill(grey, 66);
  return out;
}

function codeOf(bytes: Uint8Array) {
  const result = guardBmp(bytes);
  return result.ok ? "ok" : result.code;
}

Deno.test("bmp guard: a whole BMP passes and renders", async () => {
  assertEquals(codeOf(bmp(10, 3)), "ok");
  const result = await renderImageBitmaps(bmp(10, 3, 0));
  assertEquals(result.ok, true);
});

Deno.test("bmp guard: missing rows, top-down, compressed, odd depths, huge sizes", () => {
  assertEquals(codeOf(shortBmp(6000, 6000, 100)), "undecodable");
  assertEquals(codeOf(bmp(10, 3).subarray(0, 80)), "undecodable");
  const variants: Array<[number, (v: DataView) => unknown, string]> = [
    [22, (v) => v.setInt32(22, -3, true), "undecodable"], // top-down
    [30, (v) => v.setUint32(30, 1, true), "undecodable"], // RLE8
    [28, (v) => v.setUint16(28, 16, true), "undecodable"],
    [14, (v) => v.setUint32(14, 12, true), "undecodable"], // OS/2 core header
    [18, (v) => v.setInt32(18, 0, true), "undecodable"],
    [18, (v) => [v.setInt32(18, 9000, true), v.setInt32(22, 9000, true)], "too_large"],
  ];
  for (const [field, change, code] of variants) {
    const bytes = bmp(10, 3);
    change(new DataView(bytes.buffer));
    assertEquals(codeOf(bytes), code, `field at ${field}`);
  }
});
