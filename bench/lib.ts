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
  const dataDir = await Deno.makeTempDir({ prefix: "dds-bench-" });
  const { child, url } = spawnServiceChild(env, dataDir);
  await waitFor(`${url}/ready`);
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

/** The V8 flags of `deno task start` (deno.json), so a benchmark measures what the task runs. */
export const SERVICE_V8_FLAGS = "--v8-flags=--max-semi-space-size=8,--heap-growing-percent=100";

/**
 * `deno task start` as a child process on free ports, `env` over the benchmark's defaults; `root`
 * runs the service of another checkout (a benchmark's "before" figures).
 */
export function spawnServiceChild(
  env: Record<string, string>,
  dataDir: string,
  root: URL = new URL("../", import.meta.url),
) {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    // Manual: no copy of the linked vendor/postgres under a running benchmark (docs/deploy.md).
    args: [
      "run",
      "-A",
      "--quiet",
      "--node-modules-dir=manual",
      SERVICE_V8_FLAGS,
      new URL("src/main.ts", root).pathname,
    ],
    cwd: root.pathname,
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
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Waits until `url` answers 2xx (a server in another process has started); throws after 90 s. */
export async function waitFor(url: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
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

/** What one wrk run measured: requests per second, p99 latency in ms, non-2xx/3xx answers. */
export interface WrkResult {
  rps: number;
  p99: number;
  non2xx: number;
  /** Requests completed in the run. */
  requests: number;
}

/**
 * CPU time (user + system, all threads) a process has used so far, in ms, from Linux's
 * `/proc/<pid>/stat` (clock ticks of 10 ms); NaN elsewhere. With `thread`, that thread's alone
 * (the process's id is its main thread).
 */
export async function cpuMs(pid: number, thread?: number): Promise<number> {
  try {
    const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    const stat = await Deno.readTextFile(path);
    // Fields after the command name (which may hold spaces) are space-separated; utime and stime
    // are the 14th and 15th fields of the whole line.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * Runs wrk (Debian: `apt-get install wrk`), a load generator in its own native process, against
 * `url`. `script` is a wrk Lua script (its text), for a method, a body or a pause per request.
 */
export async function wrk(url: string, options: {
  connections: number;
  seconds: number;
  threads?: number;
  headers?: Record<string, string>;
  script?: string;
}): Promise<WrkResult> {
  const args = [
    `-t${options.threads ?? 1}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    "--latency",
  ];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push("-H", `${k}: ${v}`);
  let scriptFile: string | undefined;
  if (options.script) {
    scriptFile = await Deno.makeTempFile({ prefix: "dds-wrk-", suffix: ".lua" });
    await Deno.writeTextFile(scriptFile, options.script);
    args.push("-s", scriptFile);
  }
  try {
    const out = await new Deno.Command("wrk", { args: [...args, url], stdout: "piped" }).output();
    if (!out.success) throw new Error(`wrk exited with ${out.code}`);
    const text = new TextDecoder().decode(out.stdout);
    const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? NaN);
    const p99 = text.match(/\s99%\s+([\d.]+)(us|ms|s)/);
    const scale = { us: 0.001, ms: 1, s: 1000 } as const;
    const non2xx = Number(text.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0);
    return {
      requests: Number(text.match(/(\d+) requests in/)?.[1] ?? NaN),
      rps,
      p99: p99 ? Number(p99[1]) * scale[p99[2] as keyof typeof scale] : NaN,
      non2xx,
    };
  } finally {
    if (scriptFile) await Deno.remove(scriptFile).catch(() => {});
  }
}

/** Whether wrk is installed (the benchmarks that need it are skipped otherwise). */
export async function hasWrk(): Promise<boolean> {
  try {
    // `wrk --version` exits non-zero; only a missing binary throws.
    await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}

/** The median of some numbers. */
export const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Registers a benchmark user on `base`; the reply of `/auth/register` (tokens and user). */
export async function registerBenchUser(
  base: string,
  username = "bench",
): Promise<{ accessToken: string; user: { id: string } }> {
  const res = await fetch(`${base}/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email: `${username}@example.com`,
      username,
      password: "benchmark-password",
    }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`registering the bench user: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** CPU ms of each of this process's threads, with its name (Linux; empty elsewhere). */
export async function threadCpu(): Promise<Map<string, { name: string; ms: number }>> {
  const out = new Map<string, { name: string; ms: number }>();
  try {
    for await (const entry of Deno.readDir("/proc/self/task")) {
      const stat = await Deno.readTextFile(`/proc/self/task/${entry.name}/stat`).catch(() => "");
      if (!stat) continue;
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/\d+$/, "#");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(entry.name, { name, ms: (Number(fields[11]) + Number(fields[12])) * 10 });
    }
  } catch { /* not Linux */ }
  return out;
}

/** CPU ms per thread name between two `threadCpu` readings, the busiest first. */
export function threadCpuSince(
  before: Map<string, { name: string; ms: number }>,
  after: Map<string, { name: string; ms: number }>,
): [string, number][] {
  const byName = new Map<string, number>();
  for (const [id, { name, ms }] of after) {
    byName.set(name, (byName.get(name) ?? 0) + ms - (before.get(id)?.ms ?? 0));
  }
  return [...byName].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
}
