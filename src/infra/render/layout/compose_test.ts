import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import { composePacked, rgbaToGrey, rgbaToRgb } from "./compose.ts";

const bit = (raw2: Uint8Array, stride: number, x: number, y: number) =>
  (raw2[y * stride + (x >> 3)] >> (7 - (x & 7))) & 1;

Deno.test("compose: pure black and white keep their level; no grey means no dithering", () => {
  const grey = Uint8Array.from([0, 255, 255, 0, 0, 255]);
  const { raw2, raw4 } = composePacked(grey, 3, 2, "atkinson");
  assertEquals([...raw2], [0b01100000, 0b00100000]);
  assertEquals([...raw4], [0b00111100, 0b00001100]);
});

Deno.test("compose: grey is dithered, and glyph pixels next to it stay exactly as drawn", () => {
  // A 16x16 frame: left half mid grey (a photo), right half a black glyph column on white.
  const width = 16;
  const grey = new Uint8Array(width * 16);
  for (let y = 0; y < 16; y++) {
    for (let x = 0; x < width; x++) grey[y * width + x] = x < 8 ? 128 : x === 8 ? 0 : 255;
  }
  for (const kernel of ["floyd-steinberg", "atkinson"] as const) {
    const { raw2 } = composePacked(grey, width, 16, kernel);
    let black = 0;
    for (let y = 0; y < 16; y++) for (let x = 0; x < 8; x++) black += 1 - bit(raw2, 2, x, y);
    assert.ok(black > 40 && black < 90, `${kernel}: about half the grey is black, got ${black}`);
    for (let y = 0; y < 16; y++) {
      assertEquals(bit(raw2, 2, 8, y), 0);
      for (let x = 9; x < width; x++) assertEquals(bit(raw2, 2, x, y), 1);
    }
  }
});

Deno.test("compose: RGBA to grey and RGB composites alpha onto white", () => {
  const frame = {
    width: 3,
    height: 1,
    rgba: Uint8Array.from([255, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 128]),
  };
  assertEquals([...rgbaToGrey(frame)], [76, 255, 127]);
  assertEquals([...rgbaToRgb(frame)], [255, 0, 0, 255, 255, 255, 127, 127, 127]);
});
