/**
 * Golden images of the Scene renderer: one case per element type and per rule of SPEC 2.11 and
 * 4.7, compared pixel for pixel with `testdata/<case>.png`. `deno task goldens:update` rewrites
 * them after an intended change; review the new PNGs before committing them.
 */
import { encode } from "fast-png";
import { assertGolden } from "../testing/golden.ts";
import type { SceneRenderRequest } from "../types.ts";
import { renderScene } from "./render.ts";

const TESTDATA = new URL("./testdata/", import.meta.url);

/** A 96x64 picture whose orientation and crop are visible: colour quadrants, a frame, a diagonal. */
function pattern(): Uint8Array {
  const width = 96;
  const height = 64;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let colour = x < width / 2
        ? (y < height / 2 ? [230, 57, 70] : [69, 123, 157])
        : (y < height / 2 ? [241, 196, 15] : [42, 157, 143]);
      if (x < 3 || y < 3 || x >= width - 3 || y >= height - 3) colour = [20, 20, 20];
      if (Math.abs(x * height - y * width) < width * 2) colour = [255, 255, 255];
      data.set(colour, (y * width + x) * 3);
    }
  }
  return encode({ width, height, data, channels: 3 });
}

const IMAGES = { pattern: pattern() };

type Element = Record<string, unknown>;
const frame = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });
const text = (id: string, f: object, properties: Element): Element => ({
  id,
  type: "text",
  frame: f,
  properties,
});
const shape = (id: string, f: object, properties: Element): Element => ({
  id,
  type: "shape",
  frame: f,
  properties,
});
const image = (id: string, f: object, properties: Element): Element => ({
  id,
  type: "image",
  frame: f,
  properties,
});
const scene = (elements: Element[], background = "#FFFFFF", width = 240, height = 150) => ({
  version: 1,
  viewport: { width, height },
  background,
  elements,
});

/** A small "card": picture, heading, body, badge. Used by the colour-mode and scale cases. */
const CARD = scene([
  shape("band", frame(0, 0, 240, 34), { fill: "#1D3557" }),
  text("title", frame(10, 5, 220, 26), {
    text: "Scene v1 周末",
    fontSize: 20,
    fontWeight: 700,
    color: "#FFFFFF",
  }),
  image("photo", frame(10, 44, 96, 64), { fileId: "pattern", fit: "cover" }),
  text("body", frame(116, 44, 116, 64), {
    text: "A card with a picture, text and a badge.",
    fontSize: 13,
    color: "#333333",
  }),
  shape("badge", frame(180, 114, 50, 30), {
    shapeType: "ellipse",
    fill: "#E63946",
    strokeColor: "#000000",
    strokeWidth: 2,
  }),
  text("badge-text", frame(180, 120, 50, 18), {
    text: "Sat",
    fontSize: 13,
    fontWeight: 700,
    color: "#FFFFFF",
    align: "center",
  }),
  shape("bar", frame(10, 118, 160, 22), { fill: "#A8DADC", cornerRadius: 6 }),
], "#F1FAEE");

const CASES: Record<string, Omit<SceneRenderRequest, "images">> = {
  // Text: sizes, weights (599 regular, 600 bold), colours, the three alignments, wrapping with
  // an ellipsis, CJK, a frame lower than one line (clipped), and newlines kept.
  "text": {
    scene: scene([
      text("a", frame(6, 4, 228, 26), { text: "Heading 22 bold", fontSize: 22, fontWeight: 600 }),
      text("b", frame(6, 30, 228, 20), {
        text: "Regular 599, red",
        fontSize: 15,
        fontWeight: 599,
        color: "#D62828",
      }),
      text("c", frame(6, 50, 228, 18), { text: "centre", fontSize: 13, align: "center" }),
      text("d", frame(6, 66, 228, 18), { text: "trailing", fontSize: 13, align: "trailing" }),
      text("e", frame(6, 84, 110, 34), {
        text: "Long text wraps inside its frame and ends with an ellipsis",
        fontSize: 12,
      }),
      text("f", frame(124, 84, 110, 34), {
        text: "中文文本换行测试，超出部分以省略号结束",
        fontSize: 12,
      }),
      text("g", frame(6, 122, 110, 8), { text: "Too low for a line", fontSize: 12 }),
      text("h", frame(124, 118, 110, 30), { text: "line one\nline two", fontSize: 11 }),
    ]),
    width: 240,
    height: 150,
  },
  // Image fits, each over a grey frame so the empty part of contain shows.
  "image-fits": {
    scene: scene([
      ...["contain", "cover", "fill", "stretch"].flatMap((fit, i) => [
        shape(`bg-${fit}`, frame(6 + i * 58, 30, 52, 90), { fill: "#DDDDDD" }),
        image(fit, frame(6 + i * 58, 30, 52, 90), { fileId: "pattern", fit }),
        text(`l-${fit}`, frame(6 + i * 58, 124, 52, 18), {
          text: fit,
          fontSize: 11,
          align: "center",
        }),
      ]),
    ]),
    width: 240,
    height: 150,
  },
  // Shapes: rect, rounded rect, ellipse, strokes (inside the frame), alpha fill, stroke only.
  "shapes": {
    scene: scene([
      shape("rect", frame(8, 8, 60, 40), { fill: "#264653" }),
      shape("round", frame(88, 8, 60, 40), { fill: "#2A9D8F", cornerRadius: 12 }),
      shape("ellipse", frame(168, 8, 64, 40), { shapeType: "ellipse", fill: "#E9C46A" }),
      shape("stroked", frame(8, 60, 60, 40), {
        fill: "#FFFFFF",
        strokeColor: "#E76F51",
        strokeWidth: 4,
      }),
      shape("ring", frame(88, 60, 60, 40), {
        shapeType: "ellipse",
        fill: "#00000000",
        strokeColor: "#000000",
        strokeWidth: 3,
      }),
      shape("pill", frame(168, 60, 64, 40), {
        fill: "#F4A261",
        cornerRadius: 999,
        strokeColor: "#264653",
        strokeWidth: 2,
      }),
      shape("under", frame(8, 108, 120, 34), { fill: "#E63946" }),
      shape("alpha", frame(60, 100, 120, 34), { fill: "#1D355780" }),
    ]),
    width: 240,
    height: 150,
  },
  // Document-order stacking and frames hanging off every edge.
  "stacking-clipping": {
    scene: scene([
      shape("a", frame(20, 20, 80, 60), { fill: "#E63946" }),
      shape("b", frame(60, 50, 80, 60), { fill: "#457B9D" }),
      text("c", frame(40, 40, 120, 30), { text: "on top", fontSize: 22, fontWeight: 700 }),
      shape("left", frame(-30, 100, 60, 30), { fill: "#2A9D8F" }),
      shape("top", frame(180, -20, 40, 40), { shapeType: "ellipse", fill: "#F4A261" }),
      image("right", frame(200, 60, 96, 64), { fileId: "pattern", fit: "contain" }),
      text("bottom", frame(60, 130, 160, 60), {
        text: "Text cut by the bottom edge",
        fontSize: 18,
      }),
    ]),
    width: 240,
    height: 150,
  },
  // Alpha composited onto white: a translucent background and overlays.
  "alpha": {
    scene: scene([
      shape("a", frame(20, 20, 100, 100), { fill: "#E6394680" }),
      shape("b", frame(80, 40, 100, 100), { fill: "#457B9D80" }),
      text("c", frame(20, 60, 200, 30), {
        text: "half-transparent text",
        fontSize: 18,
        color: "#00000080",
      }),
    ], "#1D355740"),
    width: 240,
    height: 150,
  },
  "mode-color": { scene: CARD, width: 240, height: 150, colorMode: "color" },
  "mode-grayscale": { scene: CARD, width: 240, height: 150, colorMode: "grayscale" },
  "mode-monochrome": { scene: CARD, width: 240, height: 150, colorMode: "monochrome" },
  // SPEC 4.7: the same Scene at the same aspect (uniform), another aspect, and hardcode.
  "scale-uniform": { scene: CARD, width: 360, height: 225 },
  "scale-letterbox": { scene: CARD, width: 200, height: 200 },
  "scale-hardcode": { scene: CARD, width: 200, height: 200, mode: "hardcode" },
};

for (const [name, request] of Object.entries(CASES)) {
  Deno.test(`scene golden: ${name}`, async () => {
    const result = await renderScene({ ...request, images: IMAGES });
    if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
    await assertGolden(result.png, new URL(`${name}.png`, TESTDATA));
  });
}
