/**
 * Render pool fairness (issue 25): one user floods the pool with costly previews (Scenes of
 * stroked shapes, ~1 s each, within budget) while another user's light preview and a device's
 * push render arrive every half second. Reports how long those two waited, beside a baseline
 * from the same run: the same arrivals with the pool idle, and with the flood scheduled the way
 * the pool did before (every task first come, first served, as a job).
 * Run alone: `deno run -A bench/fairness.ts`.
 */
import { createRenderPool, type RenderPool } from "../src/infra/render/pool.ts";
import type { RenderCall, SceneRenderRequest } from "../src/infra/render/types.ts";
import { BENCH_SCENE, heavyEllipses, photo } from "./scene.ts";
import { type BenchRow, median, printTable } from "./lib.ts";

/** A costly preview (~1 s of drawing). */
const HEAVY = heavyEllipses(2000, 1000);
const ARRIVALS = 8;
const FLOOD = 12;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Latencies (ms) of a light preview of user B and a push render, arriving every 500 ms. */
async function arrivals(pool: RenderPool, light: SceneRenderRequest, fair: boolean) {
  const preview: number[] = [];
  const job: number[] = [];
  const timed = async (into: number[], work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    into.push(performance.now() - started);
  };
  const waits: Promise<void>[] = [];
  for (let i = 0; i < ARRIVALS; i++) {
    // Each arrival is another user (B1, B2, …): one preview each.
    const call: RenderCall = fair ? { previewOf: `b${i}` } : {};
    waits.push(timed(preview, () => pool.renderScene(light, call)));
    waits.push(timed(job, () => pool.renderScene(light)));
    await sleep(500);
  }
  await Promise.all(waits);
  return { preview, job };
}

export async function benchFairness(): Promise<BenchRow[]> {
  const pool = await createRenderPool({ threads: 2 });
  const light: SceneRenderRequest = {
    scene: BENCH_SCENE,
    images: { p: await photo() },
    width: 800,
    height: 480,
  };
  const rows: BenchRow[] = [];
  const report = (label: string, r: { preview: number[]; job: number[] }) => {
    const max = (v: number[]) => Math.max(...v);
    rows.push(
      {
        name: `fairness: ${label}: another user's preview, median`,
        value: median(r.preview),
        unit: "ms",
      },
      {
        name: `fairness: ${label}: another user's preview, worst`,
        value: max(r.preview),
        unit: "ms",
      },
      { name: `fairness: ${label}: push render, median`, value: median(r.job), unit: "ms" },
      { name: `fairness: ${label}: push render, worst`, value: max(r.job), unit: "ms" },
    );
  };
  try {
    await arrivals(pool, light, true); // warm
    report("pool idle (baseline)", await arrivals(pool, light, true));
    for (const fair of [false, true]) {
      // A's previews: FLOOD of them queued at once (a script, or several tabs).
      const call: RenderCall = fair ? { previewOf: "a" } : {};
      const flood = Array.from(
        { length: FLOOD },
        () => pool.renderScene(HEAVY, call).catch(() => {}),
      );
      await sleep(100);
      const measured = await arrivals(pool, light, fair);
      report(fair ? "A floods, turns by user" : "A floods, first come first served", measured);
      await Promise.all(flood);
    }
  } finally {
    await pool.close();
  }
  return rows;
}

if (import.meta.main) printTable(await benchFairness());
