import { assertEquals } from "../../tests/helpers/assert.ts";
import { pack1bpp, pack2bpp } from "./pack.ts";

Deno.test("pack 1 bpp: leftmost pixel in the most significant bit, 1 = white", () => {
  assertEquals([...pack1bpp(Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 1]), 8, 1)], [0x81]);
  assertEquals([...pack1bpp(Uint8Array.from([0, 1, 1, 1, 1, 1, 1, 1]), 8, 1)], [0x7f]);
});

Deno.test("pack 1 bpp: rows are row-major and padded to whole bytes", () => {
  const row0 = new Array(10).fill(1);
  const row1 = [1, 0, 0, 0, 0, 0, 0, 0, 0, 1];
  assertEquals([...pack1bpp(Uint8Array.from([...row0, ...row1]), 10, 2)], [0xff, 0xc0, 0x80, 0x40]);
});

Deno.test("pack 1 bpp: an 800x480 frame is 48000 bytes", () => {
  const white = pack1bpp(new Uint8Array(384000).fill(1), 800, 480);
  assertEquals(white.length, 48000);
  assertEquals(white.every((b) => b === 0xff), true);
  assertEquals(pack1bpp(new Uint8Array(384000), 800, 480).every((b) => b === 0), true);
});

Deno.test("pack 2 bpp: leftmost pixel in the top two bits, level index as the value", () => {
  // black 00, dark grey 01, light grey 10, white 11
  assertEquals([...pack2bpp(Uint8Array.from([0, 1, 2, 3]), 4, 1)], [0b00_01_10_11]);
  assertEquals([...pack2bpp(Uint8Array.from([3, 0, 0, 0, 2, 2, 2, 2]), 8, 1)], [0xc0, 0xaa]);
});

Deno.test("pack 2 bpp: rows padded to whole bytes", () => {
  assertEquals([...pack2bpp(Uint8Array.from([3, 3, 3, 3, 3, 1, 1, 1, 1, 1]), 5, 2)], [
    0xff,
    0xc0,
    0x55,
    0x40,
  ]);
});

Deno.test("pack 2 bpp: an 800x480 frame is 96000 bytes", () => {
  const white = pack2bpp(new Uint8Array(384000).fill(3), 800, 480);
  assertEquals(white.length, 96000);
  assertEquals(white.every((b) => b === 0xff), true);
});
