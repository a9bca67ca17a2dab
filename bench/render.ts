/**
 * Render benchmarks (issue 4): dither+pack of one 800x480 frame in-process, and the full
 * custom-push render (decode, fit, grey, dither, pack, PNG) through the Piscina pool, one at a
 * time (ms per push) and with the pool saturated (pushes per second).
 * Run alone: `deno run -A bench/render.ts`.
 */
import { ditherPacked, PHOTO_DITHER } from "../src/render/dither.ts";
import { encodePng1Bit } from "../src/render/png.ts";
import { createRenderPool } from "../src/render/pool.ts";
import { FRAME_HEIGHT as H, FRAME_WIDTH as W } from "../src/render/types.ts";
import { type BenchRow, median, printTable } from "./lib.ts";
import { benchPhoto } from "./photo.ts";

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** A photo-like grey frame: gradients plus deterministic noise, so dithering has work to do. */
function syntheticFrame(): Uint8Array {
  const frame = new Uint8Array(W * H);
  let seed = 42;
  for (let i = 0; i < frame.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const x = i % W;
    const y = Math.floor(i / W);
    frame[i] = Math.min(255, Math.max(0, (x * 255) / W * 0.6 + (y * 255) / H * 0.3 + (seed % 40)));
  }
  return frame;
}

function time(fn: () => void, runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** Runs the render benchmarks and returns their rows. */
export async function benchRender(options: { runs?: number } = {}): Promise<BenchRow[]> {
  const runs = options.runs ?? 15;
  const frame = syntheticFrame();
  time(() => ditherPacked(frame, W, H, PHOTO_DITHER), 20); // JIT warm-up
  const ditherPack = time(() => ditherPacked(frame, W, H, PHOTO_DITHER), runs * 3);
  const { raw2 } = ditherPacked(frame, W, H, PHOTO_DITHER);
  const png = time(() => encodePng1Bit(raw2, W, H), runs);

  const upload = await benchPhoto();
  const pool = await createRenderPool();
  try {
    await pool.renderImage(upload);
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await pool.renderImage(upload);
      samples.push(performance.now() - start);
    }
    const batch = Math.max(8, pool.size * 6);
    const start = performance.now();
    await Promise.all(Array.from({ length: batch }, () => pool.renderImage(upload)));
    const perSecond = batch / ((performance.now() - start) / 1000);
    return [
      {
        name: `render: dither+pack one 800x480 frame (1 bpp + 2 bpp, ${PHOTO_DITHER})`,
        value: round(ditherPack),
        unit: "ms",
      },
      { name: "render: 1-bit PNG encode of one frame", value: round(png), unit: "ms" },
      {
        name: `render: custom push 1600x1200 JPEG through the pool, one at a time`,
        value: round(median(samples)),
        unit: "ms/push",
      },
      {
        name: `render: custom pushes with the pool saturated (${pool.size} workers)`,
        value: round(perSecond),
        unit: "pushes/s",
      },
    ];
  } finally {
    await pool.close();
  }
}

if (import.meta.main) printTable(await benchRender());
