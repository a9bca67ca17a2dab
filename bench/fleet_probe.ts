/**
 * The fleet benchmark's probe, in its own process: `GET /health` on the service and on a bare
 * `Deno.serve` of this process (the same run's baseline: what the loaded machine alone costs), one
 * request at a time each, every 10 ms, until stdin closes; then prints the latencies as JSON.
 * Usage: `deno run -A bench/fleet_probe.ts <service origin>`; prints `{"ready":true}` first.
 */
const service = Deno.args[0];
const bare = Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen() {} },
  () => new Response('{"status":"ok"}', { headers: { "content-type": "application/json" } }),
);
const bareUrl = `http://127.0.0.1:${bare.addr.port}/health`;
let running = true;

async function probe(url: string, into: number[]) {
  while (running) {
    const start = performance.now();
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      into.push(performance.now() - start);
    } catch {
      into.push(Infinity);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const quantile = (values: number[], q: number) => {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0;
};
const figures = (values: number[]) => ({
  count: values.length,
  p50: quantile(values, 0.5),
  p99: quantile(values, 0.99),
  max: quantile(values, 1),
});

const serviceMs: number[] = [], bareMs: number[] = [];
const probes = [probe(`${service}/health`, serviceMs), probe(bareUrl, bareMs)];
console.log(JSON.stringify({ ready: true }));
for await (const _ of Deno.stdin.readable) { /* until stdin closes */ }
running = false;
await Promise.all(probes);
console.log(JSON.stringify({ service: figures(serviceMs), bare: figures(bareMs) }));
await bare.shutdown();
Deno.exit(0);
