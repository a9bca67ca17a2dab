/**
 * Push template benchmarks (issue 10): a template render through the Piscina pool (Liquid →
 * satori → resvg → push formats), one at a time (ms per frame, warm) and with the pool saturated
 * (frames per second). Goal on this 2-core machine: ≥ 40 frames/s, ≤ 25 ms per frame warm.
 * Run alone: `deno run -A bench/templates.ts`.
 */
import { createRenderPool } from "../src/infra/render/pool.ts";
import { templateRegistry, TEMPLATES_DIR } from "../src/infra/render/templates/registry.ts";
import { loadTemplateImages } from "../src/infra/render/templates/sample_images.ts";
import { renderTemplateSvg } from "../src/infra/render/templates/render.ts";
import { type RasterBackend, rasterise } from "../src/infra/render/layout/engine.ts";
import type { TemplateRenderRequest } from "../src/infra/render/types.ts";
import { type BenchRow, median, printTable } from "./lib.ts";

const round = (value: number) => Number(value.toFixed(1));

/** Every shipped template with its sample variables (and sample picture). */
async function samples(): Promise<TemplateRenderRequest[]> {
  const registry = templateRegistry();
  return await Promise.all(
    registry.list().map(async ({ name }) => {
      const template = registry.get(name)!;
      const folder = new URL(`${name}/`, TEMPLATES_DIR);
      const images = await loadTemplateImages(template, template.sample, folder);
      return { name, variables: template.sample, images, now: "2025-03-14T09:00:00Z" };
    }),
  );
}

/** Runs the template benchmarks and returns their rows. */
export async function benchTemplates(options: { runs?: number } = {}): Promise<BenchRow[]> {
  const runs = options.runs ?? 20;
  const requests = await samples();
  const text = requests.filter((r) => r.name !== "photo");
  const photo = requests.find((r) => r.name === "photo")!;
  const pool = await createRenderPool();
  try {
    for (const request of requests) await pool.renderTemplate(request);
    const one = async (request: TemplateRenderRequest) => {
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        await pool.renderTemplate(request);
        samples.push(performance.now() - start);
      }
      return median(samples);
    };
    const noteMs = await one(text.find((r) => r.name === "note")!);
    const photoMs = await one(photo);
    const saturate = async (list: TemplateRenderRequest[], count: number) => {
      const start = performance.now();
      await Promise.all(
        Array.from({ length: count }, (_, i) => pool.renderTemplate(list[i % list.length])),
      );
      return count / ((performance.now() - start) / 1000);
    };
    const textRate = await saturate(text, 140);
    const mixRate = await saturate(requests, 120);
    return [
      {
        name: "templates: note through the pool, one at a time (warm)",
        value: round(noteMs),
        unit: "ms/frame",
      },
      {
        name: "templates: photo (960x640 JPEG) through the pool, one at a time",
        value: round(photoMs),
        unit: "ms/frame",
      },
      {
        name: `templates: text templates, pool saturated (${pool.size} workers)`,
        value: round(textRate),
        unit: "frames/s",
      },
      {
        name: "templates: all eight incl. photo, pool saturated",
        value: round(mixRate),
        unit: "frames/s",
      },
      ...await benchRaster(text.find((r) => r.name === "note")!, runs),
    ];
  } finally {
    await pool.close();
  }
}

/**
 * The raster stage alone, on this thread: the note's SVG drawn by the native resvg and by the
 * WebAssembly build it replaced (the same-run baseline; decisions.md: Raster core).
 */
async function benchRaster(note: TemplateRenderRequest, runs: number): Promise<BenchRow[]> {
  const laidOut = await renderTemplateSvg(templateRegistry(), note);
  if (!laidOut.ok) throw new Error(laidOut.message);
  const options = { width: 800, height: 480, crisp: true };
  const time = async (backend: RasterBackend) => {
    for (let i = 0; i < 5; i++) await rasterise(laidOut.svg, options, backend);
    const samples: number[] = [];
    for (let i = 0; i < runs * 2; i++) {
      const start = performance.now();
      await rasterise(laidOut.svg, options, backend);
      samples.push(performance.now() - start);
    }
    return median(samples);
  };
  return [
    {
      name: "templates: rasterise the note's SVG, native resvg",
      value: round(await time("native")),
      unit: "ms",
    },
    {
      name: "templates: rasterise the note's SVG, resvg-wasm (baseline)",
      value: round(await time("wasm")),
      unit: "ms",
    },
  ];
}

if (import.meta.main) printTable(await benchTemplates());
