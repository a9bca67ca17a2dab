/**
 * Scene rendition benchmarks (issue 11): a typical Scene (a picture, headings, body text, shapes)
 * rendered through the Piscina pool at 800x480 and 2000x2000 (letterboxed), colour PNG. One
 * worker, one at a time (goal: ≤ 30 ms at 800x480 warm), and the pool saturated (renders/s).
 * Run alone: `deno run -A bench/scene.ts`.
 */
import { encodeRgb, rgbPixels } from "../src/infra/render/testing/images.ts";
import { createRenderPool } from "../src/infra/render/pool.ts";
import type { SceneRenderRequest } from "../src/infra/render/types.ts";
import { type BenchRow, median, printTable } from "./lib.ts";

const round = (value: number) => Number(value.toFixed(1));

/** A 1200x800 photo-like JPEG, the size a phone upload has after the client's resize. */
export function photo(): Promise<Uint8Array> {
  const data = rgbPixels(1200, 800, (x, y) => [
    (x * 255) / 1200,
    (y * 255) / 800,
    ((x ^ y) & 0x3f) + 96,
  ]);
  return encodeRgb(data, 1200, 800, "jpeg", { quality: 85 });
}

const frame = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });

/** What the AI or a person builds: a band with a title, a picture, body text, two shapes. */
/**
 * A costly Scene: three full-frame stroked ellipses of `side` pixels (~45x the cost of a fill),
 * the flood of the fairness and saturated-pool benchmarks.
 */
export function heavyEllipses(side: number, strokeWidth: number): SceneRenderRequest {
  return {
    scene: {
      version: 1,
      viewport: { width: side, height: side },
      elements: Array.from({ length: 3 }, (_, i) => ({
        id: `e${i}`,
        type: "shape",
        frame: { x: 0, y: 0, width: side, height: side },
        properties: { shapeType: "ellipse", strokeWidth, strokeColor: "#FF0000" },
      })),
    },
    width: side,
    height: side,
  };
}

export const BENCH_SCENE = {
  version: 1,
  viewport: { width: 800, height: 480 },
  background: "#F4F1EA",
  elements: [
    { id: "band", type: "shape", frame: frame(0, 0, 800, 90), properties: { fill: "#1D3557" } },
    {
      id: "title",
      type: "text",
      frame: frame(32, 18, 736, 56),
      properties: {
        text: "Weekend plans 周末计划",
        fontSize: 40,
        fontWeight: 700,
        color: "#FFFFFF",
      },
    },
    {
      id: "photo",
      type: "image",
      frame: frame(32, 120, 360, 240),
      properties: { fileId: "p", fit: "cover" },
    },
    {
      id: "body",
      type: "text",
      frame: frame(420, 120, 348, 200),
      properties: {
        text: "Hike around the lake on Saturday morning, then lunch at the hut. Bring rain " +
          "jackets, the forecast says showers after three. Sunday: rest and a long call.",
        fontSize: 22,
        color: "#222222",
      },
    },
    {
      id: "card",
      type: "shape",
      frame: frame(32, 380, 580, 72),
      properties: { fill: "#A8DADC", cornerRadius: 16 },
    },
    {
      id: "card-text",
      type: "text",
      frame: frame(52, 394, 540, 44),
      properties: { text: "Trailhead 08:30 · Parking at the north gate", fontSize: 24 },
    },
    {
      id: "badge",
      type: "shape",
      frame: frame(640, 380, 128, 72),
      properties: { shapeType: "ellipse", fill: "#E63946", strokeColor: "#000000", strokeWidth: 4 },
    },
  ],
};

/** Runs the Scene benchmarks and returns their rows. */
export async function benchScene(options: { runs?: number } = {}): Promise<BenchRow[]> {
  const runs = options.runs ?? 15;
  const images = { p: await photo() };
  const request = (width: number, height: number): SceneRenderRequest => ({
    scene: BENCH_SCENE,
    images,
    width,
    height,
  });
  const rows: BenchRow[] = [];
  const single = await createRenderPool({ threads: 1 });
  try {
    // Text and shapes only: the layout and raster core without the picture decode seam.
    const plain = {
      ...BENCH_SCENE,
      elements: BENCH_SCENE.elements.filter((element) => element.type !== "image"),
    };
    await single.renderScene({ scene: plain, width: 800, height: 480 });
    const plainSamples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await single.renderScene({ scene: plain, width: 800, height: 480 });
      plainSamples.push(performance.now() - start);
    }
    rows.push({
      name: "scene: 800x480 colour, text and shapes only, one worker (warm)",
      value: round(median(plainSamples)),
      unit: "ms/render",
    });
    for (const [w, h] of [[800, 480], [2000, 2000]]) {
      await single.renderScene(request(w, h));
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        await single.renderScene(request(w, h));
        samples.push(performance.now() - start);
      }
      rows.push({
        name: `scene: ${w}x${h} colour with a photo, one worker (warm)`,
        value: round(median(samples)),
        unit: "ms/render",
      });
    }
  } finally {
    await single.close();
  }
  const pool = await createRenderPool();
  try {
    for (const [w, h, count] of [[800, 480, 60], [2000, 2000, 16]]) {
      await pool.renderScene(request(w, h));
      const start = performance.now();
      await Promise.all(Array.from({ length: count }, () => pool.renderScene(request(w, h))));
      const rate = count / ((performance.now() - start) / 1000);
      rows.push({
        name: `scene: ${w}x${h} colour with a photo, pool saturated (${pool.size} workers)`,
        value: round(rate),
        unit: "renders/s",
      });
    }
  } finally {
    await pool.close();
  }
  return rows;
}

if (import.meta.main) printTable(await benchScene());
