import { assertEquals } from "../../../tests/helpers/assert.ts";
import { containRect, fitOnWhite, resizeGrey } from "./fit.ts";

Deno.test("fit: contain keeps the aspect ratio and centres", () => {
  assertEquals(containRect(1600, 1200, 800, 480), { x: 80, y: 0, width: 640, height: 480 });
  assertEquals(containRect(1000, 100, 800, 480), { x: 0, y: 200, width: 800, height: 80 });
  assertEquals(containRect(800, 480, 800, 480), { x: 0, y: 0, width: 800, height: 480 });
});

Deno.test("fit: small images are scaled up to fill one side", () => {
  assertEquals(containRect(100, 100, 800, 480), { x: 160, y: 0, width: 480, height: 480 });
});

Deno.test("fit: a sliver never collapses to zero pixels", () => {
  assertEquals(containRect(10000, 1, 800, 480), { x: 0, y: 239, width: 800, height: 1 });
});

Deno.test("resize: downscaling averages the covered pixels", () => {
  assertEquals([...resizeGrey(Uint8Array.from([0, 255, 0, 255]), 4, 1, 2, 1)], [128, 128]);
  assertEquals([...resizeGrey(Uint8Array.from([0, 0, 255, 255]), 2, 2, 1, 1)], [128]);
  // 3 → 2: each output covers 1.5 pixels: (0 + 0.5·90)/1.5 = 30, (0.5·90 + 180)/1.5 = 150
  assertEquals([...resizeGrey(Uint8Array.from([0, 90, 180]), 3, 1, 2, 1)], [30, 150]);
});

Deno.test("resize: upscaling interpolates between pixel centres", () => {
  assertEquals([...resizeGrey(Uint8Array.from([77]), 1, 1, 3, 3)], new Array(9).fill(77));
  // centres at -0.25 (clamped), 0.25, 0.75, 1.25 (clamped)
  assertEquals([...resizeGrey(Uint8Array.from([0, 255]), 2, 1, 4, 1)], [0, 64, 191, 255]);
});

Deno.test("fit on white: the margins are white", () => {
  const frame = fitOnWhite(Uint8Array.from([0]), 1, 1, 4, 2);
  assertEquals([...frame], [255, 0, 0, 255, 255, 0, 0, 255]);
});

Deno.test("fit on white: the frame is always the target size", () => {
  const frame = fitOnWhite(new Uint8Array(7 * 3), 7, 3, 800, 480);
  assertEquals(frame.length, 384000);
});
