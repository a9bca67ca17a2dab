import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import {
  defaultResvg,
  dropImageSelfClips,
  layoutSvg,
  rasterise,
  type RasterOptions,
  retargetSvg,
} from "./engine.ts";
import { FONT_FAMILY } from "./fonts.ts";
import type { LayoutChild } from "./html.ts";
import { pictureDataUri } from "./image.ts";

Deno.test("engine: the SVG root is pointed at the raster size, the layout box kept as viewBox", () => {
  const svg =
    '<svg width="800" height="480" viewBox="0 0 800 480" xmlns="http://www.w3.org/2000/svg"></svg>';
  assertEquals(
    retargetSvg(svg, { width: 400, height: 300, viewBox: { width: 800, height: 480 } }),
    '<svg width="400" height="300" viewBox="0 0 800 480" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg"></svg>',
  );
  let error: unknown;
  try {
    retargetSvg("<g/>", { width: 1, height: 1 });
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error);
});

Deno.test("engine: crisp rendering draws text in pure black and white only, with CJK glyphs", async () => {
  const tree = {
    type: "div",
    props: {
      style: {
        display: "flex",
        width: 200,
        height: 60,
        backgroundColor: "#fff",
        fontFamily: FONT_FAMILY,
        fontSize: 24,
      },
      children: "Hello 你好",
    },
  };
  const svg = await layoutSvg(tree, 200, 60);
  const crisp = await rasterise(svg, { width: 200, height: 60, crisp: true });
  const values = new Set<number>();
  let black = 0;
  for (let i = 0; i < crisp.rgba.length; i += 4) {
    values.add(crisp.rgba[i]);
    if (crisp.rgba[i] === 0) black++;
  }
  assertEquals([...values].sort((a, b) => a - b), [0, 255]);
  assert.ok(black > 300, "the text is drawn");
  // The CJK glyphs (right of the Latin word) come from the CJK font: they are not blank boxes.
  let cjk = 0;
  for (let y = 0; y < 60; y++) {
    for (let x = 80; x < 200; x++) if (crisp.rgba[(y * 200 + x) * 4] === 0) cjk++;
  }
  assert.ok(cjk > 100, `CJK glyphs are drawn (${cjk} black pixels)`);
  const smooth = await rasterise(svg, { width: 200, height: 60 });
  assert.ok(smooth.rgba.some((v, i) => i % 4 === 0 && v > 0 && v < 255), "anti-aliased by default");
});

Deno.test("engine: an image's clip and mask are dropped only when they are its own box", () => {
  const defs = '<clipPath id="c1"><rect x="1" y="2" width="3" height="4"/></clipPath>' +
    '<mask id="m1"><rect x="1" y="2" width="3" height="4" fill="#fff"/></mask>';
  const image =
    '<image x="1" y="2" width="3" height="4" href="data:," clip-path="url(#c1)" mask="url(#m1)"/>';
  assertEquals(
    dropImageSelfClips(`<svg>${defs}${image}</svg>`),
    `<svg>${defs}<image x="1" y="2" width="3" height="4" href="data:,"/></svg>`,
  );
  // A clip that is not the image's own rectangle (rounded corners, a smaller box) stays.
  const rounded = '<clipPath id="c1"><path d="M0 0"/></clipPath>' +
    '<mask id="m1"><rect x="1" y="2" width="3" height="4" fill="#fff"/></mask>';
  assertEquals(
    dropImageSelfClips(`<svg>${rounded}${image}</svg>`),
    `<svg>${rounded}${image}</svg>`,
  );
  const smaller = defs.replace(
    'width="3" height="4"/></clipPath>',
    'width="2" height="4"/></clipPath>',
  );
  assertEquals(
    dropImageSelfClips(`<svg>${smaller}${image}</svg>`),
    `<svg>${smaller}${image}</svg>`,
  );
});

Deno.test("engine: the native and WebAssembly builds of resvg draw the same pixels", async () => {
  // Everything the templates and Scenes draw: text (Latin and CJK), a rounded and stroked box,
  // an ellipse, a translucent fill and an embedded picture, crisp and anti-aliased, 1:1 and scaled.
  const size = 64;
  const gradient = new Uint8Array(size * size).map((_, i) => (i % size) * 4);
  const picture = pictureDataUri({ width: size, height: size, planes: [gradient] });
  const box = (style: Record<string, unknown>, children?: LayoutChild | LayoutChild[]) => ({
    type: "div",
    props: { style: { display: "flex", ...style }, children },
  });
  const tree = box({ width: 320, height: 200, backgroundColor: "#fff", fontFamily: FONT_FAMILY }, [
    box({ position: "absolute", left: 10, top: 10, fontSize: 22, fontWeight: 700 }, "Hello 你好"),
    box({
      position: "absolute",
      left: 10,
      top: 50,
      width: 120,
      height: 60,
      borderRadius: 12,
      border: "3px solid #c00",
      backgroundColor: "rgba(0, 0, 255, 0.4)",
    }),
    box({ position: "absolute", left: 150, top: 50, width: 80, height: 50, borderRadius: "50%" }),
    {
      type: "img",
      props: {
        src: picture,
        width: size,
        height: size,
        style: { position: "absolute", left: 240, top: 120 },
      },
    },
  ]);
  const svg = await layoutSvg(tree, 320, 200);
  const cases: RasterOptions[] = [
    { width: 320, height: 200, crisp: true },
    { width: 320, height: 200 },
    { width: 1000, height: 500, viewBox: { width: 320, height: 200 } },
  ];
  for (const options of cases) {
    const native = await rasterise(svg, options, "native");
    const wasm = await rasterise(svg, options, "wasm");
    assertEquals(native.width, wasm.width);
    let differing = 0;
    for (let i = 0; i < wasm.rgba.length; i++) if (native.rgba[i] !== wasm.rgba[i]) differing++;
    assertEquals(differing, 0, `${JSON.stringify(options)}: ${differing} bytes differ`);
  }
  // On this platform (Linux x64, as in CI) the prebuilt addon loads and is the default.
  assertEquals((await defaultResvg()).backend, "native");
});
