import { assertEquals } from "../../../../tests/helpers/assert.ts";
import { fitted, intersect, placePicture } from "./place.ts";

const PHOTO = { width: 400, height: 300 }; // 4:3
const BOX = { x: 10, y: 20, width: 200, height: 100 }; // 2:1

Deno.test("place: contain keeps the whole picture, centred, aspect kept", () => {
  const box = fitted(PHOTO, BOX, "contain");
  const round = (v: number) => Math.round(v * 1000) / 1000;
  assertEquals([box.x, box.y, box.width, box.height].map(round), [43.333, 20, 133.333, 100]);
  const placed = placePicture(PHOTO, BOX, "contain")!;
  assertEquals(placed.crop, { x: 0, y: 0, width: 400, height: 300 });
});

Deno.test("place: cover fills the box and crops the overflow evenly", () => {
  const placed = placePicture(PHOTO, BOX, "cover")!;
  assertEquals(placed.dest, BOX);
  // Scale 0.5: 200x150 drawn, 25 px cut top and bottom = 50 source px each.
  assertEquals(placed.crop, { x: 0, y: 50, width: 400, height: 200 });
});

Deno.test("place: fill and stretch both fill the box exactly, aspect not kept", () => {
  for (const fit of ["fill", "stretch"] as const) {
    const placed = placePicture(PHOTO, BOX, fit)!;
    assertEquals(placed.dest, BOX);
    assertEquals(placed.crop, { x: 0, y: 0, width: 400, height: 300 });
  }
});

Deno.test("place: clipped to the viewport, only the visible source is cropped", () => {
  const box = { x: -100, y: 0, width: 200, height: 150 };
  const placed = placePicture(PHOTO, box, "stretch", { x: 0, y: 0, width: 800, height: 480 })!;
  assertEquals(placed.dest, { x: 0, y: 0, width: 100, height: 150 });
  assertEquals(placed.crop, { x: 200, y: 0, width: 200, height: 300 });
});

Deno.test("place: nothing visible is undefined", () => {
  const viewport = { x: 0, y: 0, width: 800, height: 480 };
  assertEquals(
    placePicture(PHOTO, { x: 900, y: 0, width: 10, height: 10 }, "cover", viewport),
    undefined,
  );
  assertEquals(
    intersect({ x: 0, y: 0, width: 5, height: 5 }, { x: 5, y: 0, width: 5, height: 5 }),
    undefined,
  );
});
