/**
 * `deno task scene:render scene.json out.png [--width N] [--height N] [--color-mode M]
 * [--mode auto|hardcode] [--images DIR]`: renders a hand-written Scene v1 into a PNG exactly as a
 * rendition would be.
 *
 * scene.json holds the envelope `{mediaType, version, data}` or the `data` alone. The size
 * defaults to the Scene's viewport, the colour mode to color. An image element's `fileId` names
 * a file in `--images` (default: the folder of scene.json). Problems are printed as the API
 * would answer them (400 messages), and the exit code is 1.
 */
import { dirname, join, resolve } from "node:path";
import { renderScene } from "../src/infra/render/scene/render.ts";
import type { ColorMode, SceneMode } from "../src/infra/render/scene/types.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";

const USAGE = "usage: deno task scene:render scene.json out.png [--width N] [--height N] " +
  "[--color-mode color|grayscale|monochrome] [--mode auto|hardcode] [--images DIR]";

helpAndExit(
  Deno.args,
  `${USAGE}

Renders a hand-written Scene v1 (scene.json: the envelope or its data) into a PNG exactly as a
rendition would be; image elements' fileIds name files in --images (default: scene.json's folder).`,
);

function fail(message: string, code = 2): never {
  console.error(code === 2 ? `${message}\n${USAGE}` : message);
  Deno.exit(code);
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
const [scenePath, outPath] = positional;
if (!scenePath || !outPath) fail("scene.json and out.png are required");

let document: Record<string, unknown>;
try {
  document = JSON.parse(await Deno.readTextFile(scenePath));
} catch (error) {
  fail(`Cannot read ${scenePath}: ${error instanceof Error ? error.message : error}`, 1);
}
const data = (document.data ?? document) as Record<string, unknown>;
const viewport = (data.viewport ?? {}) as { width?: number; height?: number };
const number = (name: string, fallback: number | undefined) => {
  const value = flags[name] === undefined ? fallback : Number(flags[name]);
  if (value === undefined || !Number.isInteger(value)) fail(`--${name} must be an integer`);
  return value;
};

const imagesDir = resolve(flags.images ?? dirname(scenePath));
const images: Record<string, Uint8Array> = {};
for (const element of Array.isArray(data.elements) ? data.elements : []) {
  const fileId = element?.type === "image" ? element?.properties?.fileId : undefined;
  if (typeof fileId !== "string" || fileId in images) continue;
  try {
    images[fileId] = await Deno.readFile(join(imagesDir, fileId));
  } catch {
    console.error(`warning: no file ${fileId} in ${imagesDir}; the element is not drawn`);
  }
}

const started = performance.now();
const result = await renderScene({
  scene: data,
  images,
  width: number("width", viewport.width),
  height: number("height", viewport.height),
  colorMode: (flags["color-mode"] ?? "color") as ColorMode,
  mode: (flags.mode ?? "auto") as SceneMode,
});
if (!result.ok) fail(`${result.code}: ${result.message}`, 1);
await Deno.writeFile(outPath, result.png);
console.log(
  `${outPath} (${result.png.length} bytes, ${(performance.now() - started).toFixed(0)} ms)`,
);
