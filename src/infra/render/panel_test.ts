/** Renders for a display's panel (CONTRACT.md): its size, a greyscale PNG of its depth. */
import assert from "node:assert/strict";
import { decode } from "fast-png";
import { panelBitmaps, renderImageBitmaps, rotateGrey } from "./bitmaps.ts";
import { renderTemplateBitmaps } from "./templates/render.ts";
import { templateRegistry } from "./templates/registry.ts";
import { gradientJpeg } from "./testing/images.ts";

/** The grey levels of a decoded PNG of depth under 8 (fast-png keeps its rows packed). */
function levelsOf(png: ReturnType<typeof decode>): number[] {
  const { width, height, depth, data } = png;
  const stride = Math.ceil((width * depth) / 8);
  const out: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const bit = x * depth;
      const byte = data[y * stride + (bit >> 3)];
      out.push((byte >> (8 - depth - (bit & 7))) & ((1 << depth) - 1));
    }
  }
  return out;
}

Deno.test("panel: a picture at the panel's size as a 1-, 2- or 4-bit grey PNG", async () => {
  const source = await gradientJpeg(640, 480);
  for (const bitDepth of [1, 2, 4] as const) {
    const result = await renderImageBitmaps(source, {
      panel: { width: 1200, height: 825, bitDepth },
      mode: "photo",
    });
    assert.ok(result.ok);
    const png = decode(result.bitmaps.png);
    assert.deepEqual([png.width, png.height, png.depth, png.channels], [1200, 825, bitDepth, 1]);
    // Toned and dithered: every level of the depth is used on a gradient.
    const levels = new Set(levelsOf(png));
    assert.equal(levels.size, 2 ** bitDepth);
  }
});

Deno.test("panel: 4-bit levels follow the grey (black stays 0, white 15)", () => {
  const frame = new Uint8Array(16 * 2);
  for (let x = 0; x < 16; x++) frame[x] = frame[16 + x] = x * 17;
  const { png } = panelBitmaps(frame, { width: 16, height: 2, bitDepth: 4 }, "threshold");
  const decoded = decode(png);
  assert.deepEqual(levelsOf(decoded).slice(0, 16), [...Array(16).keys()]);
});

Deno.test("panel: a template laid out for a TRMNL X, drawn at 1872x1404 in 4 bits", async () => {
  const result = await renderTemplateBitmaps(templateRegistry(), {
    name: "headline",
    variables: { headline: "Planning", points: ["One", "Two"] },
    panel: { width: 1872, height: 1404, bitDepth: 4 },
  });
  assert.ok(result.ok);
  const png = decode(result.bitmaps.png);
  assert.deepEqual([png.width, png.height, png.depth], [1872, 1404, 4]);
});

Deno.test("panel: rotateGrey turns a frame clockwise; a rotated panel is laid out upright", () => {
  // 3 wide, 2 high:  a b c / d e f
  const frame = Uint8Array.from([1, 2, 3, 4, 5, 6]);
  // 90 clockwise (2 wide, 3 high): d a / e b / f c
  assert.deepEqual([...rotateGrey(frame, 3, 90)], [4, 1, 5, 2, 6, 3]);
  assert.deepEqual([...rotateGrey(frame, 3, 180)], [6, 5, 4, 3, 2, 1]);
  // 270: c f / b e / a d
  assert.deepEqual([...rotateGrey(frame, 3, 270)], [3, 6, 2, 5, 1, 4]);
  assert.equal(rotateGrey(frame, 3, 0), frame);
  // A 4x2 panel turned 90 takes a 2x4 upright frame: its top row (black) is the right column.
  const upright = Uint8Array.from([0, 0, 255, 255, 255, 255, 255, 255]);
  const { png } = panelBitmaps(
    upright,
    { width: 4, height: 2, bitDepth: 4, rotation: 90 },
    "threshold",
  );
  assert.deepEqual(levelsOf(decode(png)), [15, 15, 15, 0, 15, 15, 15, 0]);
});
