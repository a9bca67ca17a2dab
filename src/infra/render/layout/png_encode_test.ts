import { decode } from "fast-png";
import { assertEquals } from "../../../../tests/helpers/assert.ts";
import { encodePng } from "./png_encode.ts";

Deno.test("png: grey, grey+alpha, RGB and RGBA round-trip through a PNG decoder", () => {
  for (const channels of [1, 2, 3, 4] as const) {
    const width = 7;
    const height = 5;
    const data = Uint8Array.from({ length: width * height * channels }, (_, i) => (i * 37) & 0xff);
    const png = decode(encodePng({ width, height, channels, depth: 8, data }));
    assertEquals([png.width, png.height, png.channels, png.depth], [width, height, channels, 8]);
    assertEquals([...png.data], [...data]);
  }
});

Deno.test("png: 1-bit rows are written as packed", () => {
  const packed = Uint8Array.from([0b10100000, 0b01010000, 0xff, 0xf0]); // 12 px wide, 2 rows
  const png = decode(encodePng({ width: 12, height: 2, channels: 1, depth: 1, data: packed }));
  assertEquals([png.width, png.height, png.depth], [12, 2, 1]);
  assertEquals([...png.data], [0b10100000, 0b01010000, 0xff, 0xf0]);
});

Deno.test("png: data of the wrong length is refused", () => {
  let error: unknown;
  try {
    encodePng({ width: 2, height: 2, channels: 3, depth: 8, data: new Uint8Array(11) });
  } catch (e) {
    error = e;
  }
  assertEquals(error instanceof Error, true);
});
