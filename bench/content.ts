/**
 * Content pipeline benchmarks (issue 10): template previews through the HTTP API and the render
 * pool (renders per second with the pool saturated), and `/health` p99 idle and while the pool
 * is saturated: rendering runs in the worker threads, so the request loop must stay responsive
 * (goal: saturated p99 at most twice the idle p99).
 *
 * Measured as an operator would: the service runs as `deno task start` in its own process, and
 * wrk (native, in processes of its own) both saturates the pool with previews and probes
 * `/health`, so no JavaScript load generator competes with the service for the event loop. The
 * probe has the same shape idle and busy (8 connections, each a request then a 2 ms pause: a
 * health checker and light traffic). Each pair is measured `runs` times and the medians are
 * reported.
 *
 * Baseline from the same run: a bare `Deno.serve` beside as many busy threads as the pool has
 * workers (bench/bare_busy.ts), probed the same way. Its ratio is what this machine's scheduler
 * alone costs an event loop whose cores are busy. Needs wrk (Debian: `apt-get install wrk`);
 * skipped without it.
 * Run alone: `deno run -A bench/content.ts`.
 */
import { defaultThreads } from "../src/infra/render/pool.ts";
import { freePort } from "../tests/helpers/ports.ts";
import {
  type BenchRow,
  hasWrk,
  median,
  printTable,
  startServiceProcess,
  waitFor,
  wrk,
  type WrkResult,
} from "./lib.ts";

const round = (value: number) => Number(value.toFixed(2));

/** Each connection sends a request, waits for the answer, then pauses 2 ms. */
const PACED = "function delay()\n  return 2\nend\n";

const NOTE = {
  title: "Before the weekend",
  body: "Water the plants on the balcony.\nCall the landlord about the heating.",
  footer: "Thursday, 14 March",
};

interface Pairs {
  idle: number[];
  busy: number[];
  ratios: number[];
}

/**
 * `runs` pairs of `/health` probes, idle then while `saturate` keeps the cores busy (from a
 * second before the probe to a second after it).
 */
async function probePairs(
  what: string,
  healthUrl: string,
  saturate: (seconds: number) => Promise<unknown>,
  runs: number,
  seconds: number,
): Promise<Pairs> {
  const probe = () => wrk(healthUrl, { connections: 8, seconds, script: PACED });
  const pairs: Pairs = { idle: [], busy: [], ratios: [] };
  await probe(); // warm-up
  for (let run = 0; run < runs; run++) {
    const quiet = checked(`${what} /health idle`, await probe());
    const saturating = saturate(seconds + 2);
    await new Promise((r) => setTimeout(r, 1000));
    const loaded = checked(`${what} /health saturated`, await probe());
    await saturating;
    pairs.idle.push(quiet.p99);
    pairs.busy.push(loaded.p99);
    pairs.ratios.push(loaded.p99 / Math.max(quiet.p99, 0.001));
    console.error(
      `content ${what} ${run + 1}/${runs}: /health p99 ${quiet.p99} ms idle, ` +
        `${loaded.p99} ms saturated`,
    );
  }
  return pairs;
}

function checked(what: string, result: WrkResult): WrkResult {
  if (result.non2xx) throw new Error(`${what}: ${result.non2xx} answers were not 2xx`);
  return result;
}

function pairRows(label: string, pairs: Pairs, runs: number): BenchRow[] {
  return [
    { name: `${label}: /health p99 idle`, value: round(median(pairs.idle)), unit: "ms" },
    { name: `${label}: /health p99 busy`, value: round(median(pairs.busy)), unit: "ms" },
    {
      name: `${label}: /health p99 busy / idle, median of ${runs}`,
      value: round(median(pairs.ratios)),
      unit: "x",
    },
  ];
}

/** Runs the content benchmarks and returns their rows. */
export async function benchContent(
  env: Record<string, string> = {},
  options: { runs?: number; seconds?: number } = {},
): Promise<BenchRow[]> {
  if (!await hasWrk()) {
    console.error("content: skipped, wrk is not installed (apt-get install wrk)");
    return [];
  }
  const runs = options.runs ?? 3;
  const seconds = options.seconds ?? 5;
  const service = await startServiceProcess(env);
  const rates: number[] = [];
  let measured: Pairs;
  try {
    const name = `bench${Date.now().toString(36)}`;
    const registered = await fetch(`${service.url}/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        email: `${name}@example.com`,
        username: name,
        password: "bench-pass-1",
      }),
    });
    const { accessToken } = await registered.json();
    const previews = (seconds: number) =>
      wrk(`${service.url}/api/templates/note/preview`, {
        connections: 4, // 4 previews in flight for the pool's workers: saturated
        seconds,
        headers: { authorization: `Bearer ${accessToken}` },
        script: 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n' +
          `wrk.body = [==[${JSON.stringify(NOTE)}]==]\n`,
      }).then((result) => checked("previews", result));
    await previews(2); // warm-up
    measured = await probePairs(
      "service",
      `${service.url}/health`,
      async (seconds) => {
        rates.push((await previews(seconds)).rps);
      },
      runs,
      seconds,
    );
  } finally {
    await service.stop();
  }
  const bare = await startBareBusy(defaultThreads());
  let baseline: Pairs;
  try {
    baseline = await probePairs(
      "bare",
      `${bare.url}/health`,
      async (seconds) => {
        await fetch(`${bare.url}/busy`, { method: "POST" }).then((r) => r.body?.cancel());
        await new Promise((r) => setTimeout(r, seconds * 1000));
        await fetch(`${bare.url}/busy`, { method: "DELETE" }).then((r) => r.body?.cancel());
      },
      runs,
      seconds,
    );
  } finally {
    await bare.stop();
  }
  return [
    {
      name: "content: template previews over HTTP, pool saturated",
      value: round(median(rates)),
      unit: "renders/s",
    },
    ...pairRows("content (busy: pool saturated; goal ≤ 2x)", measured, runs),
    ...pairRows(
      `content baseline (bare Deno.serve, ${defaultThreads()} busy threads)`,
      baseline,
      runs,
    ),
  ];
}

/** bench/bare_busy.ts in its own process, on a free port. */
async function startBareBusy(threads: number) {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("./bare_busy.ts", import.meta.url).pathname,
      String(port),
      String(threads),
    ],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/health`);
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

if (import.meta.main) printTable(await benchContent());
