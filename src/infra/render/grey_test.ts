import { assertEquals } from "../../../tests/helpers/assert.ts";
import { toGrey } from "./grey.ts";

const u8 = (values: number[]) => Uint8Array.from(values);

Deno.test("grey: RGB primaries take BT.601 luma weights", () => {
  const data = u8([255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0]);
  const grey = toGrey({ width: 5, height: 1, channels: 3, data });
  // 0.299·255 = 76.2, 0.587·255 = 149.7, 0.114·255 = 29.1
  assertEquals([...grey], [76, 150, 29, 255, 0]);
});

Deno.test("grey: transparency is composited on white", () => {
  const data = u8([0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 128, 255, 0, 0, 51]);
  const grey = toGrey({ width: 4, height: 1, channels: 4, data });
  // fully transparent → white; opaque black → 0; half black → 255·127/255; red at 20% → 76·0.2 + 255·0.8
  assertEquals([...grey], [255, 0, 127, 219]);
});

Deno.test("grey: grey and grey+alpha sources", () => {
  assertEquals([...toGrey({ width: 2, height: 1, channels: 2, data: u8([10, 255, 10, 0]) })], [
    10,
    255,
  ]);
  assertEquals([...toGrey({ width: 3, height: 1, channels: 1, data: u8([0, 128, 255]) })], [
    0,
    128,
    255,
  ]);
});

Deno.test("grey: one byte per pixel", () => {
  const grey = toGrey({ width: 3, height: 2, channels: 1, data: new Uint8Array(6) });
  assertEquals(grey.length, 6);
});
