import { assertEquals } from "../../tests/helpers/assert.ts";
import { toGrey } from "./grey.ts";

Deno.test("grey: RGB primaries take BT.601 luma weights", () => {
  const data = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0];
  const grey = toGrey({ width: 5, height: 1, channels: 3, maxValue: 255, data });
  // 0.299·255 = 76.2, 0.587·255 = 149.7, 0.114·255 = 29.1
  assertEquals([...grey], [76, 150, 29, 255, 0]);
});

Deno.test("grey: transparency is composited on white", () => {
  const data = [0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 128, 255, 0, 0, 51];
  const grey = toGrey({ width: 4, height: 1, channels: 4, maxValue: 255, data });
  // fully transparent → white; opaque black → 0; half black → 255·127/255; red at 20% → 76·0.2 + 255·0.8
  assertEquals([...grey], [255, 0, 127, 219]);
});

Deno.test("grey: grey+alpha and 16-bit samples are scaled to 8 bits", () => {
  assertEquals([
    ...toGrey({ width: 2, height: 1, channels: 2, maxValue: 255, data: [10, 255, 10, 0] }),
  ], [
    10,
    255,
  ]);
  const wide = toGrey({
    width: 3,
    height: 1,
    channels: 1,
    maxValue: 65535,
    data: [0, 32768, 65535],
  });
  assertEquals([...wide], [0, 128, 255]);
});

Deno.test("grey: one byte per pixel", () => {
  const grey = toGrey({ width: 3, height: 2, channels: 1, maxValue: 255, data: new Uint8Array(6) });
  assertEquals(grey.length, 6);
});
