/**
 * Render benchmarks (issue 4): dither+pack of one 800x480 frame in-process, and the full
 * custom-push render (decode, fit, grey, dither, pack, PNG) through the Piscina pool, one at a
 * time (ms per push) and with the pool saturated (pushes per second); and the same push drawn
 * for a display's panel (issue 23): 800x480 at 1 bit beside a TRMNL X's 1872x1404 at 4 bits.
 * Run alone: `deno run -A bench/render.ts`.
 */
import { ditherPacked, PHOTO_DITHER } from "../src/infra/render/dither.ts";
import { encodePng1Bit } from "../src/infra/render/png.ts";
import { createRenderPool } from "../src/infra/render/pool.ts";
import { FRAME_HEIGHT as H, FRAME_WIDTH as W } from "../src/infra/render/types.ts";
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
    // A display's panel: the same upload drawn at its size and grey depth, in the pool.
    const panelMs = async (panel: { width: number; height: number; bitDepth: 1 | 2 | 4 }) => {
      await pool.renderImage(upload, { panel });
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const at = performance.now();
        await pool.renderImage(upload, { panel });
        times.push(performance.now() - at);
      }
      return median(times);
    };
    const og = await panelMs({ width: 800, height: 480, bitDepth: 1 });
    const x = await panelMs({ width: 1872, height: 1404, bitDepth: 4 });
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
        name: "render: that push for a display panel 800x480 1-bit PNG, one at a time",
        value: round(og),
        unit: "ms/push",
      },
      {
        name: "render: that push for a TRMNL X panel 1872x1404 4-bit PNG, one at a time",
        value: round(x),
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
