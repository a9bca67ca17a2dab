/**
 * Content pipeline benchmarks (issue 10): template previews through the HTTP API and the render
 * pool (renders per second with the pool saturated), and `/health` p99 idle and while the pool
 * is saturated: rendering runs in the worker threads, so the request loop must stay responsive
 * (goal: saturated p99 at most twice the idle p99). The service runs in a child process.
 * Run alone: `deno run -A bench/content.ts`.
 */
import { type BenchRow, load, printTable, startServiceProcess } from "./lib.ts";

const round = (value: number) => Number(value.toFixed(2));

/** Runs the content benchmarks and returns their rows. */
export async function benchContent(env: Record<string, string> = {}): Promise<BenchRow[]> {
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
    const preview = async () => {
      const res = await fetch(`${service.url}/api/templates/note/preview`, {
        method: "POST",
        headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({
          title: "Before the weekend",
          body: "Water the plants on the balcony.\nCall the landlord about the heating.",
          footer: "Thursday, 14 March",
        }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`preview answered ${res.status}`);
    };
    const health = async () => {
      const res = await fetch(`${service.url}/health`);
      await res.arrayBuffer();
    };
    // Warm both paths first.
    await load(health, { total: 500, concurrency: 8 });
    await load(preview, { total: 20, concurrency: 4 });
    const idle = await load(health, { total: 3000, concurrency: 8 });
    // Saturate the pool (4 previews in flight for 2 workers) while /health is measured.
    let stop = false;
    let rendered = 0;
    const started = performance.now();
    const saturate = Array.from({ length: 4 }, async () => {
      while (!stop) {
        await preview();
        rendered++;
      }
    });
    await new Promise((r) => setTimeout(r, 500));
    const busy = await load(async () => {
      await health();
      // A request every ~2 ms per connection, like a health checker and some light traffic.
      await new Promise((r) => setTimeout(r, 2));
    }, { total: 1500, concurrency: 8 });
    stop = true;
    await Promise.all(saturate);
    const rate = rendered / ((performance.now() - started) / 1000);
    return [
      {
        name: "content: template previews over HTTP, pool saturated",
        value: round(rate),
        unit: "renders/s",
      },
      { name: "content: /health p99 idle", value: round(idle.p99), unit: "ms" },
      {
        name: "content: /health p99 while the pool is saturated",
        value: round(busy.p99),
        unit: "ms",
      },
      {
        name: "content: /health p99 saturated / idle (goal ≤ 2)",
        value: round(busy.p99 / Math.max(idle.p99, 0.001)),
        unit: "x",
      },
    ];
  } finally {
    await service.stop();
  }
}

if (import.meta.main) printTable(await benchContent());
