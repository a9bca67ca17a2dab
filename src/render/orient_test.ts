import { assertEquals } from "../../tests/helpers/assert.ts";
import { orient } from "./orient.ts";

// Stored 3x2:  1 2 3
//              4 5 6
const stored = { data: Uint8Array.from([1, 2, 3, 4, 5, 6]), width: 3, height: 2 };
const turned = (orientation: number) => {
  const { data, width, height } = orient(stored, orientation);
  return {
    rows: Array.from({ length: height }, (_, y) => [...data.subarray(y * width, (y + 1) * width)]),
  };
};

Deno.test("orient: 1 and unknown values keep the stored pixels", () => {
  assertEquals(orient(stored, 1), stored);
  assertEquals(orient(stored, 0), stored);
  assertEquals(orient(stored, 9), stored);
});

Deno.test("orient: mirror, 180° and flip keep the size", () => {
  assertEquals(turned(2), { rows: [[3, 2, 1], [6, 5, 4]] });
  assertEquals(turned(3), { rows: [[6, 5, 4], [3, 2, 1]] });
  assertEquals(turned(4), { rows: [[4, 5, 6], [1, 2, 3]] });
});

Deno.test("orient: 5-8 swap width and height", () => {
  assertEquals(turned(5), { rows: [[1, 4], [2, 5], [3, 6]] });
  // 6: turn 90° clockwise, the bottom-left pixel comes to the top-left
  assertEquals(turned(6), { rows: [[4, 1], [5, 2], [6, 3]] });
  assertEquals(turned(7), { rows: [[6, 3], [5, 2], [4, 1]] });
  // 8: turn 90° anticlockwise, the top-right pixel comes to the top-left
  assertEquals(turned(8), { rows: [[3, 6], [2, 5], [1, 4]] });
});
