import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { composeLevels, rgbaToGrey, rgbaToRgb } from "./compose.ts";

Deno.test("compose: pure black and white keep their level; no grey means no dithering", () => {
  const grey = Uint8Array.from([0, 255, 255, 0, 0, 255]);
  assertEquals([...composeLevels(grey, 3, 2, 2)], [0, 1, 1, 0, 0, 1]);
  assertEquals([...composeLevels(grey, 3, 2, 4)], [0, 3, 3, 0, 0, 3]);
});

Deno.test("compose: grey is dithered, and glyph pixels next to it stay exactly as drawn", () => {
  // A 16x16 frame: left half mid grey (a photo), right half a black glyph column on white.
  const width = 16;
  const grey = new Uint8Array(width * 16);
  for (let y = 0; y < 16; y++) {
    for (let x = 0; x < width; x++) grey[y * width + x] = x < 8 ? 128 : x === 8 ? 0 : 255;
  }
  const levels = composeLevels(grey, width, 16, 2);
  const left = [...levels].filter((_, i) => i % width < 8);
  const black = left.filter((v) => v === 0).length;
  assert.ok(black > 48 && black < 80, `about half the grey pixels are black, got ${black}`);
  for (let y = 0; y < 16; y++) {
    assertEquals(levels[y * width + 8], 0);
    for (let x = 9; x < width; x++) assertEquals(levels[y * width + x], 1);
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
