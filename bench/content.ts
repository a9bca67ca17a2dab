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
 * reported. Needs wrk (Debian: `apt-get install wrk`); skipped without it.
 * Run alone: `deno run -A bench/content.ts`.
 */
import {
  type BenchRow,
  hasWrk,
  median,
  printTable,
  startServiceProcess,
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
    const previewUrl = `${service.url}/api/templates/note/preview`;
    const previews = (seconds: number) =>
      wrk(previewUrl, {
        connections: 4, // 4 previews in flight for the pool's workers: saturated
        seconds,
        headers: { authorization: `Bearer ${accessToken}` },
        script: 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n' +
          `wrk.body = [==[${JSON.stringify(NOTE)}]==]\n`,
      });
    const health = () => wrk(`${service.url}/health`, { connections: 8, seconds, script: PACED });
    const check = (what: string, result: WrkResult) => {
      if (result.non2xx) throw new Error(`${what}: ${result.non2xx} answers were not 2xx`);
      return result;
    };
    // Warm both paths first.
    check("warm-up previews", await previews(2));
    check("warm-up /health", await health());
    const idle: number[] = [];
    const busy: number[] = [];
    const ratios: number[] = [];
    const rates: number[] = [];
    for (let run = 0; run < runs; run++) {
      const quiet = check("/health idle", await health());
      // The pool is saturated for a second before and after the probe.
      const saturating = previews(seconds + 2);
      await new Promise((r) => setTimeout(r, 1000));
      const loaded = check("/health saturated", await health());
      const rendered = check("previews", await saturating);
      idle.push(quiet.p99);
      busy.push(loaded.p99);
      ratios.push(loaded.p99 / Math.max(quiet.p99, 0.001));
      rates.push(rendered.rps);
      console.error(
        `content run ${run + 1}/${runs}: /health p99 ${quiet.p99} ms idle, ${loaded.p99} ms ` +
          `saturated; ${rendered.rps.toFixed(1)} previews/s`,
      );
    }
    return [
      {
        name: "content: template previews over HTTP, pool saturated",
        value: round(median(rates)),
        unit: "renders/s",
      },
      { name: "content: /health p99 idle", value: round(median(idle)), unit: "ms" },
      {
        name: "content: /health p99 while the pool is saturated",
        value: round(median(busy)),
        unit: "ms",
      },
      {
        name: `content: /health p99 saturated / idle, median of ${runs} (goal ≤ 2)`,
        value: round(median(ratios)),
        unit: "x",
      },
    ];
  } finally {
    await service.stop();
  }
}

if (import.meta.main) printTable(await benchContent());
