/**
 * `deno task html:screen markup.html out.png [--width N] [--height N] [--bit-depth 1|2|4]
 * [--rotation 0|90|180|270] [--view full|half_horizontal|half_vertical|quadrant]
 * [--mashup LAYOUT] [--css FILE] [--page page.html]`: draws a plugin's markup (HTML, Liquid
 * already rendered) into a panel's `image.png` exactly as an HTML screen is drawn: the page
 * shell, Chromium, then the render pool's region dithering. With `--mashup`, every positional
 * file but the last is a slot's markup in reading order. `--page` also writes the whole page.
 */
import { HtmlScreens } from "../src/infra/html/screens.ts";
import {
  MASHUP_LAYOUTS,
  type MashupLayout,
  SCREEN_VIEWS,
  type ScreenContent,
  type ScreenView,
} from "../src/infra/html/shell.ts";
import { renderScreenBitmaps } from "../src/infra/render/screen.ts";
import type { PanelSpec, ScreenRenderRequest } from "../src/infra/render/types.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";
import { resolve } from "node:path";

const USAGE = "usage: deno task html:screen markup.html [more.html…] out.png [--width N] " +
  "[--height N] [--bit-depth 1|2|4] [--rotation 0|90|180|270] [--view VIEW] " +
  "[--mashup LAYOUT] [--css FILE] [--page page.html]";

helpAndExit(
  Deno.args,
  `${USAGE}

Draws plugin markup (HTML) into a panel's image.png as an HTML screen is drawn: TRMNL's page
shell and the service's stylesheet (or --css), headless Chromium, text crisp and pictures
dithered. Defaults: 800x480, 1 bit, view full. --mashup takes one markup file per slot.`,
);

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  Deno.exit(2);
}

const positional: string[] = [];
const flags: Record<string, string> = {};
for (let i = 0; i < Deno.args.length; i++) {
  const arg = Deno.args[i];
  if (arg.startsWith("--")) {
    const [name, inline] = arg.slice(2).split("=", 2);
    flags[name] = inline ?? Deno.args[++i] ?? fail(`${arg} needs a value`);
  } else positional.push(arg);
}
// `deno task` runs in the project's folder; paths are the caller's.
const here = (path: string) => resolve(Deno.env.get("INIT_CWD") ?? Deno.cwd(), path);
if (flags.css) flags.css = here(flags.css);
if (flags.page) flags.page = here(flags.page);
if (positional.length < 2) fail("a markup file and an output file are needed");
const out = here(positional.pop()!);

const bitDepth = Number(flags["bit-depth"] ?? 1);
const rotation = Number(flags.rotation ?? 0);
if (![1, 2, 4].includes(bitDepth)) fail("--bit-depth must be 1, 2 or 4");
if (![0, 90, 180, 270].includes(rotation)) fail("--rotation must be 0, 90, 180 or 270");
const panel: PanelSpec = {
  width: Number(flags.width ?? 800),
  height: Number(flags.height ?? 480),
  bitDepth: bitDepth as PanelSpec["bitDepth"],
  rotation: rotation as PanelSpec["rotation"],
};
const markups = await Promise.all(positional.map((file) => Deno.readTextFile(here(file))));
let content: ScreenContent;
if (flags.mashup) {
  if (!MASHUP_LAYOUTS.includes(flags.mashup as MashupLayout)) {
    fail(`--mashup must be one of ${MASHUP_LAYOUTS.join(", ")}`);
  }
  content = { mashup: flags.mashup as MashupLayout, markups };
} else {
  const view = (flags.view ?? "full") as ScreenView;
  if (!SCREEN_VIEWS.includes(view)) fail(`--view must be one of ${SCREEN_VIEWS.join(", ")}`);
  content = { view, markup: markups.join("\n") };
}

/** The render pool's screen task, run here in-process (the same code its worker runs). */
async function packed(request: ScreenRenderRequest) {
  const result = await renderScreenBitmaps(request);
  if (!result.ok) throw new Error(result.message);
  return result.bitmaps;
}

const screens = new HtmlScreens({
  frameworkCssPath: flags.css,
  renderer: {
    renderScreen: packed,
    previewScreen: async (request) => (await packed(request)).png,
  },
});
try {
  const started = performance.now();
  if (flags.page) await Deno.writeTextFile(flags.page, await screens.page({ content, panel }));
  const png = await screens.preview({ content, panel });
  await Deno.writeFile(out, png);
  const ms = Math.round(performance.now() - started);
  console.log(
    `${out}: ${panel.width}x${panel.height} ${bitDepth}-bit, ${png.length} bytes, ${ms} ms`,
  );
} finally {
  await screens.close();
}
