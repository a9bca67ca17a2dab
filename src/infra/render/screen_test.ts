/** An HTML screen's region dithering: text areas keep their level, only pictures diffuse. */
import { decode } from "fast-png";
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { encodePng } from "./layout/png_encode.ts";
import { crispMask, renderScreenBitmaps } from "./screen.ts";

/** A 64x32 grey screenshot: mid grey (128) everywhere. */
function greyShot(width = 64, height = 32, value = 128): Uint8Array {
  const data = new Uint8Array(width * height).fill(value);
  return encodePng({ width, height, channels: 1, depth: 8, data, level: 1 });
}

/** The panel PNG's levels, unpacked to one value a pixel. */
function levels(png: Uint8Array): { width: number; values: number[] } {
  const image = decode(png);
  const depth = image.depth;
  const values: number[] = [];
  const stride = Math.ceil((image.width * depth) / 8);
  const bytes = image.data as Uint8Array;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const bit = x * depth;
      const byte = bytes[y * stride + (bit >> 3)];
      values.push((byte >> (8 - depth - (bit & 7))) & ((1 << depth) - 1));
    }
  }
  return { width: image.width, values };
}

function region(values: number[], width: number, x0: number, x1: number): number[] {
  return values.filter((_, i) => i % width >= x0 && i % width < x1);
}

for (const bitDepth of [1, 2, 4] as const) {
  Deno.test(`${bitDepth}-bit: a grey outside pictures is one level, inside it is dithered`, async () => {
    const result = await renderScreenBitmaps({
      screenshot: greyShot(),
      pictures: [{ x: 32, y: 0, width: 32, height: 32 }],
      panel: { width: 64, height: 32, bitDepth },
    });
    assert(result.ok);
    const { width, values } = levels(result.bitmaps.png);
    assertEquals(new Set(region(values, width, 0, 32)).size, 1, "text area: one level");
    if (bitDepth !== 4) {
      // 128 lies between levels at 1 and 2 bits: the picture mixes two (at 4 bits 128 is near 8·17).
      assert(new Set(region(values, width, 32, 64)).size > 1, "picture area: dithered");
    }
  });
}

Deno.test("1-bit: anti-aliased text edges darker than ~166 turn black, lighter stay white", async () => {
  for (const [grey, expected] of [[150, 0], [180, 1]]) {
    const result = await renderScreenBitmaps({
      screenshot: greyShot(16, 4, grey),
      pictures: [],
      panel: { width: 16, height: 4, bitDepth: 1 },
    });
    assert(result.ok);
    assertEquals([...new Set(levels(result.bitmaps.png).values)], [expected], `grey ${grey}`);
  }
});

Deno.test("a turned panel's screen is laid out upright and turned onto it", async () => {
  const result = await renderScreenBitmaps({
    screenshot: greyShot(32, 64, 255),
    pictures: [],
    panel: { width: 64, height: 32, bitDepth: 1, rotation: 90 },
  });
  assert(result.ok);
  const image = decode(result.bitmaps.png);
  assertEquals([image.width, image.height, image.depth], [64, 32, 1]);
  assertEquals(result.bitmaps.raw2.length, (64 / 8) * 32);
});

Deno.test("a screenshot of another size is refused", async () => {
  const result = await renderScreenBitmaps({
    screenshot: greyShot(10, 10),
    pictures: [],
    panel: { width: 64, height: 32, bitDepth: 1 },
  });
  assert(!result.ok);
  assertEquals(result.code, "undecodable");
});

Deno.test("picture boxes are clipped to the frame", () => {
  const mask = crispMask(4, 2, [{ x: 3, y: -1, width: 5, height: 2 }]);
  assertEquals([...mask], [1, 1, 1, 0, 1, 1, 1, 1]);
});
