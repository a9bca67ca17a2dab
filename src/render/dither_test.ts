import { assertEquals } from "../../tests/helpers/assert.ts";
import { ditherFloydSteinberg } from "./dither.ts";

const dither = (values: number[], width: number, height: number, levels: number) => [
  ...ditherFloydSteinberg(Uint8Array.from(values), width, height, levels),
];

Deno.test("dither: black and white stay put at 2 levels", () => {
  assertEquals(dither([0, 0, 0, 0], 2, 2, 2), [0, 0, 0, 0]);
  assertEquals(dither([255, 255, 255, 255], 2, 2, 2), [1, 1, 1, 1]);
});

Deno.test("dither: nearest level with ties towards white", () => {
  // 128/255 is just over half → white; 127 just under → black
  assertEquals(dither([128], 1, 1, 2), [1]);
  assertEquals(dither([127], 1, 1, 2), [0]);
});

Deno.test("dither: error goes 7/16 to the right", () => {
  // 128 → 255 leaves -127; the next pixel gets 128 - 127·7/16 = 72.4 → black
  assertEquals(dither([128, 128], 2, 1, 2), [1, 0]);
});

Deno.test("dither: a 2x2 mid grey becomes a checkerboard (all four weights)", () => {
  // (0,0) 128 → 1, error -127: right 72.44, below 88.31, below-right 120.06
  // (1,0) 72.44 → 0, error 72.44: below-left 88.31+13.58 = 101.89, below 120.06+22.64 = 142.70
  // (0,1) 101.89 → 0, error 101.89: right 142.70+44.58 = 187.28 → (1,1) = 1
  assertEquals(dither([128, 128, 128, 128], 2, 2, 2), [1, 0, 0, 1]);
});

Deno.test("dither: 4 levels keep exact levels 0, 85, 170, 255", () => {
  assertEquals(dither([0, 85, 170, 255], 4, 1, 4), [0, 1, 2, 3]);
});

Deno.test("dither: 4 levels diffuse the error too", () => {
  // 128 → level 2 (170), error -42; next 128 - 42·7/16 = 109.6 → level 1 (85)
  assertEquals(dither([128, 128], 2, 1, 4), [2, 1]);
});

Deno.test("dither: a uniform 25% grey field averages to about 25% white", () => {
  const size = 64;
  const out = ditherFloydSteinberg(new Uint8Array(size * size).fill(64), size, size, 2);
  const white = out.reduce((sum, v) => sum + v, 0) / out.length;
  assertEquals(Math.abs(white - 64 / 255) < 0.03, true);
});

Deno.test("dither: one level index per pixel", () => {
  assertEquals(ditherFloydSteinberg(new Uint8Array(800 * 480), 800, 480, 2).length, 384000);
});
