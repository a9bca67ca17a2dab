import { decode, encode } from "fast-png";
import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import { renderScene } from "./render.ts";
import type { SceneRenderRequest } from "../types.ts";

type Px = number[];

/** Renders and decodes; `at(x, y)` gives the pixel's samples (1-bit: 0 or 1). */
async function draw(request: SceneRenderRequest) {
  const result = await renderScene(request);
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  const png = decode(result.png);
  const at = (x: number, y: number): Px => {
    if (png.depth === 1) {
      const stride = Math.ceil(png.width / 8);
      return [(png.data[y * stride + (x >> 3)] >> (7 - (x & 7))) & 1];
    }
    const i = (y * png.width + x) * png.channels;
    return [...png.data.slice(i, i + png.channels)];
  };
  return { png, at };
}

function scene(elements: unknown[], extra: Record<string, unknown> = {}) {
  return { version: 1, viewport: { width: 100, height: 50 }, elements, ...extra };
}

const rect = (id: string, x: number, y: number, w: number, h: number, props = {}) => ({
  id,
  type: "shape",
  frame: { x, y, width: w, height: h },
  properties: { fill: "#000000", ...props },
});

/** A 40x20 picture: left half red, right half blue. */
const PICTURE = (() => {
  const data = new Uint8Array(40 * 20 * 3);
  for (let i = 0; i < 800; i++) data.set(i % 40 < 20 ? [255, 0, 0] : [0, 0, 255], i * 3);
  return encode({ width: 40, height: 20, data, channels: 3 });
})();

const RED: Px = [255, 0, 0];
const BLUE: Px = [0, 0, 255];
const WHITE: Px = [255, 255, 255];
const BLACK: Px = [0, 0, 0];

Deno.test("scene render: the PNG has the requested size and the colour mode's format", async () => {
  const s = scene([rect("r", 10, 10, 20, 20)]);
  const color = await draw({ scene: s, width: 100, height: 50 });
  assertEquals([color.png.width, color.png.height, color.png.channels, color.png.depth], [
    100,
    50,
    3,
    8,
  ]);
  const grey = await draw({ scene: s, width: 100, height: 50, colorMode: "grayscale" });
  assertEquals([grey.png.channels, grey.png.depth], [1, 8]);
  const mono = await draw({ scene: s, width: 100, height: 50, colorMode: "monochrome" });
  assertEquals([mono.png.channels, mono.png.depth], [1, 1]);
  assertEquals([color.at(20, 20), grey.at(20, 20), mono.at(20, 20)], [BLACK, [0], [0]]);
  assertEquals([color.at(5, 5), grey.at(5, 5), mono.at(5, 5)], [WHITE, [255], [1]]);
});

Deno.test("scene render rule 3: document order stacks, later elements paint over earlier ones", async () => {
  const red = rect("a", 10, 10, 30, 30, { fill: "#FF0000" });
  const blue = rect("b", 20, 20, 30, 30, { fill: "#0000FF" });
  const one = await draw({ scene: scene([red, blue]), width: 100, height: 50 });
  const two = await draw({ scene: scene([blue, red]), width: 100, height: 50 });
  assertEquals([one.at(30, 30), two.at(30, 30)], [BLUE, RED]);
});

Deno.test("scene render rule 4: alpha is composited onto white, background included", async () => {
  const { at } = await draw({
    scene: scene([rect("a", 0, 0, 50, 50, { fill: "#00000080" })], { background: "#FF000080" }),
    width: 100,
    height: 50,
  });
  assertEquals(at(75, 25), [255, 127, 127]); // half-transparent red over white
  const [r, g, b] = at(25, 25); // half-transparent black over that
  assert.ok(
    Math.abs(r - 127) <= 2 && Math.abs(g - 63) <= 2 && Math.abs(b - 63) <= 2,
    `${r},${g},${b}`,
  );
});

Deno.test("scene render rule 4: out-of-bounds frames are clipped, also out of the letterbox", async () => {
  // 100x50 viewport in a 200x200 PNG: scale 2, content at y 50..150; a shape hangs off the top.
  const { at } = await draw({
    scene: scene([rect("a", 20, -30, 20, 60)], { background: "#00FF00" }),
    width: 200,
    height: 200,
  });
  assertEquals(at(60, 20), [0, 255, 0]); // letterbox above: background, not the shape
  assertEquals(at(60, 55), BLACK); // inside the viewport: the visible part
  assertEquals(at(60, 120), [0, 255, 0]); // below the shape (viewport y 30 = PNG y 110)
});

Deno.test("scene render 4.7: same aspect uniform, other aspect letterboxed, hardcode stretched", async () => {
  const s = scene([rect("a", 0, 0, 50, 25)], { background: "#0000FF" });
  const uniform = await draw({ scene: s, width: 200, height: 100 });
  assertEquals([uniform.at(99, 49), uniform.at(101, 51), uniform.at(150, 75)], [BLACK, BLUE, BLUE]);
  // Letterbox: scale min(1, 2) = 1, centred vertically at y 25..75 with blue bands.
  const boxed = await draw({ scene: s, width: 100, height: 100 });
  assertEquals([boxed.at(10, 10), boxed.at(10, 30), boxed.at(60, 30), boxed.at(10, 90)], [
    BLUE,
    BLACK,
    BLUE,
    BLUE,
  ]);
  // Hardcode: anisotropic, the rect fills the top-left quarter exactly.
  const stretched = await draw({ scene: s, width: 100, height: 100, mode: "hardcode" });
  assertEquals([stretched.at(10, 10), stretched.at(49, 49), stretched.at(51, 51)], [
    BLACK,
    BLACK,
    BLUE,
  ]);
});

Deno.test("scene render: image fits contain, cover, fill and stretch", async () => {
  const image = (fit: string) => ({
    id: fit,
    type: "image",
    frame: { x: 0, y: 0, width: 40, height: 40 },
    properties: { fileId: "p", fit },
  });
  const render = (fit: string) =>
    draw({ scene: scene([image(fit)]), images: { p: PICTURE }, width: 100, height: 50 });
  // contain: 40x20 centred, white above and below.
  const contain = await render("contain");
  assertEquals([contain.at(5, 5), contain.at(5, 20), contain.at(35, 20), contain.at(5, 35)], [
    WHITE,
    RED,
    BLUE,
    WHITE,
  ]);
  // cover: scaled to 80x40 and centred, so the frame shows the middle: red left, blue right.
  const cover = await render("cover");
  assertEquals([cover.at(5, 2), cover.at(35, 2), cover.at(5, 38), cover.at(45, 20)], [
    RED,
    BLUE,
    RED,
    WHITE,
  ]);
  // fill and stretch: the whole picture distorted to 40x40 (the same drawing).
  const fill = await render("fill");
  const stretch = await render("stretch");
  assertEquals([fill.at(5, 2), fill.at(35, 38)], [RED, BLUE]);
  assertEquals(fill.png.data, stretch.png.data);
});

Deno.test("scene render: an unresolved image draws nothing, an undecodable one fails", async () => {
  const s = scene([{
    id: "i",
    type: "image",
    frame: { x: 0, y: 0, width: 50, height: 50 },
    properties: { fileId: "gone" },
  }]);
  const blank = await draw({ scene: s, width: 100, height: 50 });
  assertEquals(blank.at(25, 25), WHITE);
  const result = await renderScene({
    scene: s,
    images: { gone: new Uint8Array([1, 2, 3]) },
    width: 100,
    height: 50,
  });
  assertEquals(result.ok ? "" : result.code, "unsupported_format");
});

Deno.test("scene render rule 6: unknown element types are skipped", async () => {
  const known = [rect("a", 0, 0, 10, 10)];
  const a = await draw({ scene: scene(known), width: 100, height: 50 });
  const b = await draw({
    scene: scene([...known, {
      id: "x",
      type: "sparkline",
      frame: { x: 0, y: 0, width: 99, height: 49 },
    }]),
    width: 100,
    height: 50,
  });
  assertEquals(a.png.data, b.png.data);
});

function inkBox(
  at: (x: number, y: number) => Px,
  width: number,
  height: number,
  dark: (p: Px) => boolean,
) {
  let minX = width, minY = height, maxX = -1, maxY = -1, count = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!dark(at(x, y))) continue;
      count++;
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
  }
  return { minX, minY, maxX, maxY, count };
}

const text = (
  props: Record<string, unknown>,
  frame = { x: 10, y: 10, width: 200, height: 30 },
) => ({
  id: "t",
  type: "text",
  frame,
  properties: props,
});

Deno.test("scene render: long text wraps, is clipped to its frame and never spills", async () => {
  const long = "A sentence that goes on far longer than the frame can hold ".repeat(5);
  const frame = { x: 20, y: 20, width: 160, height: 45 }; // 16 px type, 20 px lines: 2 lines
  const { at } = await draw({
    scene: {
      version: 1,
      viewport: { width: 240, height: 120 },
      elements: [text({ text: long }, frame)],
    },
    width: 240,
    height: 120,
  });
  const ink = inkBox(at, 240, 120, (p) => p[0] < 128);
  assert.ok(ink.count > 200, "text drawn");
  assert.ok(
    ink.minX >= 20 && ink.maxX < 180 && ink.minY >= 20 && ink.maxY < 65,
    JSON.stringify(ink),
  );
  assert.ok(ink.maxY > 45, "wrapped onto a second line");
});

Deno.test("scene render: bold at 600+, colour, alignment, CJK in the CJK font", async () => {
  const view = { width: 240, height: 50 };
  const one = async (props: Record<string, unknown>) => {
    const { at } = await draw({
      scene: {
        version: 1,
        viewport: view,
        elements: [text({ text: "Heading", ...props }, { x: 0, y: 0, width: 240, height: 50 })],
      },
      width: 240,
      height: 50,
    });
    return { at, ink: inkBox(at, 240, 50, (p) => p[0] + p[1] + p[2] < 600) };
  };
  const regular = await one({ fontSize: 30, fontWeight: 599 });
  const bold = await one({ fontSize: 30, fontWeight: 600 });
  assert.ok(bold.ink.count > regular.ink.count * 1.2, `${bold.ink.count} vs ${regular.ink.count}`);
  const centred = await one({ fontSize: 30, align: "center" });
  const trailing = await one({ fontSize: 30, align: "trailing" });
  assert.ok(regular.ink.minX < 5, "leading starts at the left");
  assert.ok(Math.abs(centred.ink.minX - (239 - centred.ink.maxX)) <= 3, "centred");
  assert.ok(trailing.ink.maxX > 234, "trailing ends at the right");
  const red = await one({ fontSize: 30, color: "#FF0000" });
  const reds = inkBox(red.at, 240, 50, (p) => p[0] > 200 && p[1] < 60 && p[2] < 60).count;
  assert.ok(reds > 100, "drawn in red");
  const cjk = await one({ text: "你好世界", fontSize: 30 });
  assert.ok(cjk.ink.count > 300 && cjk.ink.maxX > 100, "CJK glyphs drawn from the CJK font");
});

Deno.test("scene render: monochrome keeps text crisp and dithers grey fills and pictures", async () => {
  const { at } = await draw({
    scene: scene([
      rect("grey", 0, 0, 50, 50, { fill: "#808080" }),
      text({ text: "Ab", fontSize: 30, color: "#333333" }, { x: 55, y: 5, width: 45, height: 40 }),
    ]),
    width: 100,
    height: 50,
    colorMode: "monochrome",
  });
  const greyInk = inkBox(at, 50, 50, (p) => p[0] === 0).count;
  assert.ok(greyInk > 900 && greyInk < 1600, `grey fill dithered to about half black: ${greyInk}`);
  // Dark grey text is drawn pure black: as many black pixels as black text would have.
  const black = await draw({
    scene: scene([
      text({ text: "Ab", fontSize: 30, color: "#000000" }, { x: 55, y: 5, width: 45, height: 40 }),
    ]),
    width: 100,
    height: 50,
    colorMode: "monochrome",
  });
  for (let y = 0; y < 50; y++) {
    for (let x = 55; x < 100; x++) assertEquals(at(x, y), black.at(x, y));
  }
});

Deno.test("scene render: invalid Scenes and sizes fail as invalid_request", async () => {
  const s = scene([]);
  const cases: [SceneRenderRequest, RegExp][] = [
    [{ scene: { version: 1 }, width: 10, height: 10 }, /viewport is required/],
    [{ scene: s, width: 0, height: 10 }, /width must be an integer from 1 to 8192/],
    [{ scene: s, width: 8193, height: 1 }, /width must be an integer from 1 to 8192/],
    [{ scene: s, width: 2001, height: 2000 }, /over 4000000 pixels/],
    [{ scene: s, width: 100, height: 100, maxPixels: 5000 }, /over 5000 pixels/],
    [{ scene: s, width: 10, height: 10, colorMode: "sepia" as never }, /colorMode sepia/],
  ];
  for (const [request, message] of cases) {
    const result = await renderScene(request);
    assert.ok(!result.ok);
    assertEquals(result.code, "invalid_request");
    assert.match(result.message, message);
  }
});
