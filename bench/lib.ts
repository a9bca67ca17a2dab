/**
 * Benchmark helpers: the service in a child process (so the load generator does not share its
 * event loop), a bounded concurrent load loop on loopback, and the result table.
 */

import { createDatabase } from "../tests/helpers/server.ts";
import { freePort } from "../tests/helpers/ports.ts";

/** One line of the result table. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
}

/**
 * Starts `deno task start` in a child process on free ports and waits for /ready. With a
 * DATABASE_URL it runs on a scratch database created on that server and dropped afterwards,
 * never on the server's own database.
 */
export async function startServiceProcess(env: Record<string, string> = {}) {
  const scratch = env.DATABASE_URL ? await createDatabase(env.DATABASE_URL) : undefined;
  if (scratch) env = { ...env, DATABASE_URL: scratch.url };
  const port = freePort();
  const dataDir = await Deno.makeTempDir({ prefix: "dds-bench-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../src/main.ts", import.meta.url).pathname],
    env: {
      PORT: String(port),
      MQTT_PORT: String(freePort()),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      ...env,
    },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/ready`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      await scratch?.drop();
    },
  };
}

/** Runs `task` `total` times with `concurrency` in flight; returns throughput and latency. */
export async function load(
  task: () => Promise<void>,
  options: { total: number; concurrency: number },
): Promise<{ rps: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < options.total) {
      next++;
      const t0 = performance.now();
      await task();
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
  return { rps: latencies.length / seconds, p50: pct(0.5), p99: pct(0.99) };
}

/** Prints rows as an aligned table. */
export function printTable(rows: BenchRow[]): void {
  const width = Math.max(...rows.map((r) => r.name.length), 9);
  console.log(`${"benchmark".padEnd(width)}  ${"value".padStart(10)}  unit`);
  console.log(`${"-".repeat(width)}  ${"-".repeat(10)}  ----`);
  for (const r of rows) {
    const value = r.value >= 100 ? r.value.toFixed(0) : r.value.toFixed(2);
    console.log(`${r.name.padEnd(width)}  ${value.padStart(10)}  ${r.unit}`);
  }
}
