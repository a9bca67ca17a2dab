/**
 * HTML screens end to end through the render pool: a panel's formats at its size and depth, a
 * preview that is the push's own `image.png`, a turned panel, and refusals the HTTP layer maps.
 */
import { decode } from "fast-png";
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { HtmlScreens } from "./screens.ts";
import { RenderPool } from "../render/pool.ts";
import { toHttpError } from "../render/errors.ts";
import { AppError } from "../../errors.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

const PIXEL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABc3UBGAAAAABJRU5ErkJggg==";
const MARKUP = `<div class="layout layout--col"><span class="title">Hello</span>
  <img src="${PIXEL}" style="width:80px;height:40px"></div>
  <div class="title_bar"><span class="title">Test</span></div>`;

Deno.test(
  "a screen is drawn into the panel's formats; its preview is the same PNG",
  options,
  async () => {
    const pool = new RenderPool({ threads: 1 });
    const screens = new HtmlScreens({ renderer: pool });
    try {
      for (const bitDepth of [1, 2, 4] as const) {
        const panel = { width: 400, height: 240, bitDepth };
        const bitmaps = await screens.draw({ content: { markup: MARKUP }, panel });
        const image = decode(bitmaps.png);
        assertEquals([image.width, image.height, image.depth, image.channels], [
          400,
          240,
          bitDepth,
          1,
        ]);
        assertEquals(bitmaps.raw2.length, (400 / 8) * 240);
        assertEquals(bitmaps.raw4.length, (400 / 4) * 240);
        const preview = await screens.preview({ content: { markup: MARKUP }, panel });
        assertEquals(preview, bitmaps.png, "same markup, same bytes");
      }
      const turned = await screens.preview({
        content: { mashup: "1Lx1R", markups: [MARKUP, MARKUP] },
        panel: { width: 400, height: 240, bitDepth: 1, rotation: 90 },
      });
      const image = decode(turned);
      assertEquals([image.width, image.height], [400, 240]);
    } finally {
      await screens.close();
      await pool.close();
    }
  },
);

Deno.test("past its deadline a screen is 503 for a preview", options, async () => {
  const pool = new RenderPool({ threads: 1 });
  const screens = new HtmlScreens({ renderer: pool, deadlineMs: 1500 });
  try {
    let error: unknown;
    try {
      await screens.preview({
        content: { markup: "<script>for(;;){}</script>" },
        panel: { width: 100, height: 50, bitDepth: 1 },
      });
    } catch (caught) {
      error = toHttpError(caught);
    }
    assert(error instanceof AppError);
    assertEquals(error.code, "unavailable");
  } finally {
    await screens.close();
    await pool.close();
  }
});

Deno.test("an operator's stylesheet is used in place of the built-in one", options, async () => {
  const css = await Deno.makeTempFile({ suffix: ".css" });
  await Deno.writeTextFile(css, ".screen{background:#000}");
  const screens = new HtmlScreens({
    frameworkCssPath: css,
    renderer: { renderScreen: () => Promise.reject(), previewScreen: () => Promise.reject() },
  });
  try {
    const page = await screens.page({
      content: { markup: "" },
      panel: { width: 10, height: 10, bitDepth: 1 },
    });
    assert(page.includes(".screen{background:#000}"));
    assert(!page.includes(".grid--cols-12"));
  } finally {
    await screens.close();
    await Deno.remove(css);
  }
});
