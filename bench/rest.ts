/**
 * A process at rest and a process just started (issue 26), measured as an operator would: the
 * service runs as `deno task start` in a child process (`src/main.ts`), and a bare `Deno.serve`
 * started the same way in the same run is the baseline of every figure.
 *
 * - start to `/ready` 200 (fresh data directory, then the same directory again; on PostgreSQL
 *   when DATABASE_URL is set), beside the bare server's start to its first 200;
 * - resident memory (VmRSS) 5 s after ready, beside the bare server's;
 * - the cold tail: wrk on `GET /api/devices/{id}/push` for the first seconds after a restart's
 *   `/ready` said 200, then for the same time again (warm), beside the bare server's p99;
 * - the first render after start (issue 40): once the restart is at rest, a template preview
 *   (`POST /api/templates/note/preview`, an HTTP request that waits for the render pool) and a
 *   second one, and the resident memory after them.
 *
 * Run alone: `deno run -A bench/rest.ts [--database-url postgres://…] [--mqtt-url mqtt://…]
 * [--runs 2] [--seconds 4] [--service-root DIR]`. The cold tail needs wrk (skipped without it).
 * `--service-root` starts the service of another checkout (e.g. a worktree of the base commit):
 * alternate runs with and without it for before/after figures of the same spell.
 */
import { sql } from "kysely";
import { connect } from "../src/infra/db/connect.ts";
import { createDatabase } from "../tests/helpers/server.ts";
import { freePort } from "../tests/helpers/ports.ts";
import {
  type BenchRow,
  hasWrk,
  median,
  printTable,
  registerBenchUser,
  spawnServiceChild,
  wrk,
} from "./lib.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resident memory of a process in MB (Linux /proc), or NaN elsewhere. */
async function rssMb(pid: number): Promise<number> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/** Polls `url` every 20 ms until it answers 200; ms since `started`. */
async function untilOk(url: string, started: number, child: Deno.ChildProcess): Promise<number> {
  let exited = false;
  child.status.then(() => exited = true);
  while (!exited) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return performance.now() - started;
    } catch { /* not listening yet */ }
    await sleep(20);
  }
  throw new Error(`${url}: the process ended before it answered 200`);
}

export interface Started {
  url: string;
  readyMs: number;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the service (or the bare server) and waits for its readiness. */
export async function spawnService(
  env: Record<string, string>,
  dataDir: string,
  root?: URL,
): Promise<Started> {
  const started = performance.now();
  const { child, url } = spawnServiceChild(env, dataDir, root);
  const readyMs = await untilOk(`${url}/ready`, started, child);
  return {
    url,
    readyMs,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

export async function spawnBare(): Promise<Started> {
  const port = freePort();
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--node-modules-dir=manual",
      `Deno.serve({ port: ${port}, hostname: "127.0.0.1", onListen() {} }, () =>
        new Response('{"status":"ok"}', { headers: { "content-type": "application/json" } }))`,
    ],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const readyMs = await untilOk(`${url}/`, started, child);
  return {
    url,
    readyMs,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** A device of the bench user whose latest push is published (written directly, service stopped). */
export async function provision(dataDir: string, databaseUrl: string | undefined, userId: string) {
  const connection = await connect({ url: databaseUrl, dataDir });
  try {
    const deviceId = crypto.randomUUID();
    const pushId = crypto.randomUUID();
    const db = connection.db;
    await sql`INSERT INTO devices (id, hw_id, thing_name, owner_id, bound_at)
      VALUES (${deviceId}, ${crypto.randomUUID().replaceAll("-", "")},
        ${`bench-${deviceId.slice(-8)}`}, ${userId}, now())`.execute(db);
    const prefix = `render/${userId}/${deviceId}/${pushId}/`;
    await sql`INSERT INTO pushes (id, device_id, user_id, title, summary, priority, status,
        template, params, render_prefix, published_at)
      VALUES (${pushId}, ${deviceId}, ${userId}, 'bench', '', 0, 'PUBLISHED', 'custom-image',
        '{}'::jsonb, ${prefix}, now())`.execute(db);
    await sql`UPDATE devices SET latest_push_id = ${pushId}, latest_push_at = now()
      WHERE id = ${deviceId}`.execute(db);
    return deviceId;
  } finally {
    await connection.close();
  }
}

/** The note template's sample variables: what the first preview after start renders. */
const NOTE = {
  title: "Before the weekend",
  body: "Water the plants on the balcony.\nCall the landlord about the heating.",
  footer: "Thursday, 14 March",
};

/** One template preview through the service (it waits for the render pool); ms. */
async function previewMs(url: string, accessToken: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/api/templates/note/preview`, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
    body: JSON.stringify(NOTE),
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`template preview: ${res.status}`);
  return performance.now() - started;
}

interface BackendOptions {
  seconds: number;
  wrk: boolean;
  restMs: number;
  /** The checkout whose service runs (default: this one). */
  root?: URL;
}

/** One backend's figures: start times, memory at rest, the cold and warm p99, the first render. */
async function measureBackend(
  label: string,
  env: Record<string, string>,
  options: BackendOptions,
): Promise<Record<string, number>> {
  const dataDir = await Deno.makeTempDir({ prefix: "dds-bench-rest-" });
  const scratch = env.DATABASE_URL ? await createDatabase(env.DATABASE_URL) : undefined;
  if (scratch) env = { ...env, DATABASE_URL: scratch.url };
  const out: Record<string, number> = {};
  try {
    // First start: a fresh data directory (or a fresh database).
    const first = await spawnService(env, dataDir, options.root);
    out[`${label}: start to /ready, fresh`] = first.readyMs;
    await sleep(options.restMs);
    out[`${label}: resident memory at rest, fresh`] = await rssMb(first.pid);
    const reg = await registerBenchUser(first.url);
    await first.stop();
    const deviceId = await provision(dataDir, env.DATABASE_URL, reg.user.id);
    // Second start: the same data (a restart), then load from the moment it is ready.
    const second = await spawnService(env, dataDir, options.root);
    out[`${label}: start to /ready, existing data`] = second.readyMs;
    if (options.wrk) {
      // Sign in again on the new process? The token is a JWT of the same secrets: still valid.
      const headers = { authorization: `Bearer ${reg.accessToken}` };
      const target = `${second.url}/api/devices/${deviceId}/push`;
      const cold = await wrk(target, {
        threads: 2,
        connections: 64,
        seconds: options.seconds,
        headers,
      });
      const warm = await wrk(target, {
        threads: 2,
        connections: 64,
        seconds: options.seconds,
        headers,
      });
      if (cold.non2xx || warm.non2xx) {
        console.error(`${label}: ${cold.non2xx + warm.non2xx} non-2xx answers on the device path`);
      }
      out[`${label}: push p99, first ${options.seconds} s after ready`] = cold.p99;
      out[`${label}: push p99, next ${options.seconds} s`] = warm.p99;
      out[`${label}: push req/s, first ${options.seconds} s after ready`] = cold.rps;
      await sleep(options.restMs);
    } else {
      await sleep(options.restMs);
    }
    out[`${label}: resident memory at rest, existing data`] = await rssMb(second.pid);
    // The first render after start, at rest: it waits for a worker's start where none rests.
    out[`${label}: first render after start (template preview)`] = await previewMs(
      second.url,
      reg.accessToken,
    );
    out[`${label}: second render (template preview)`] = await previewMs(
      second.url,
      reg.accessToken,
    );
    out[`${label}: resident memory after the two renders`] = await rssMb(second.pid);
    await second.stop();
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await scratch?.drop();
  }
  return out;
}

/** The bare baseline: start to first 200, memory at rest, and p99 under the same wrk load. */
async function measureBare(options: { seconds: number; wrk: boolean; restMs: number }) {
  const bare = await spawnBare();
  const out: Record<string, number> = { "bare Deno.serve: start to first 200": bare.readyMs };
  try {
    if (options.wrk) {
      const r = await wrk(`${bare.url}/`, {
        threads: 2,
        connections: 64,
        seconds: options.seconds,
      });
      out[`bare Deno.serve: p99 (${options.seconds} s)`] = r.p99;
    }
    await sleep(options.restMs);
    out["bare Deno.serve: resident memory at rest"] = await rssMb(bare.pid);
  } finally {
    await bare.stop();
  }
  return out;
}

const UNITS: Array<[RegExp, string]> = [[/memory/, "MB"], [/req\/s/, "req/s"], [/./, "ms"]];

/** Runs the benchmark and returns its rows (medians over `runs`). */
export async function benchRest(
  options: {
    databaseUrl?: string;
    mqttUrl?: string;
    runs?: number;
    seconds?: number;
    embedded?: boolean;
    /** Another checkout's service (its `src/main.ts`), for a baseline of the same spell. */
    serviceRoot?: string;
  } = {},
): Promise<BenchRow[]> {
  const runs = options.runs ?? 2;
  const root = options.serviceRoot
    ? new URL(`file://${Deno.realPathSync(options.serviceRoot).replace(/\/?$/, "/")}`)
    : undefined;
  const common = { seconds: options.seconds ?? 4, wrk: await hasWrk(), restMs: 5_000, root };
  const samples = new Map<string, number[]>();
  const add = (figures: Record<string, number>) => {
    for (const [name, value] of Object.entries(figures)) {
      samples.set(name, [...(samples.get(name) ?? []), value]);
    }
  };
  for (let run = 1; run <= runs; run++) {
    add(await measureBare(common));
    if (options.embedded !== false) add(await measureBackend("embedded", {}, common));
    if (options.databaseUrl) {
      const env: Record<string, string> = { DATABASE_URL: options.databaseUrl };
      if (options.mqttUrl) env.MQTT_URL = options.mqttUrl;
      add(
        await measureBackend(
          options.mqttUrl ? "PostgreSQL + MQTT broker" : "PostgreSQL",
          env,
          common,
        ),
      );
    }
    console.error(`rest: run ${run}/${runs}: ${
      JSON.stringify(Object.fromEntries(
        [...samples].map(([k, v]) => [k, Math.round(v.at(-1)!)]),
      ))
    }`);
  }
  return [...samples].map(([name, values]) => ({
    name: `rest: ${name} (median of ${values.length})`,
    value: median(values),
    unit: UNITS.find(([re]) => re.test(name))![1],
  }));
}

if (import.meta.main) {
  helpAndExit(
    Deno.args,
    `Usage: deno run -A bench/rest.ts [--database-url postgres://...] [--mqtt-url mqtt://...]
       [--runs 2] [--seconds 4] [--no-embedded] [--service-root DIR]

Start to /ready, resident memory at rest, the p99 of the first seconds after a restart and the
first render after it, embedded and (with a database URL) on PostgreSQL, beside a bare
Deno.serve. wrk for the tail. --service-root: measure the service of another checkout.`,
  );
  const flag = (name: string) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  const rows = await benchRest({
    databaseUrl: flag("database-url") ?? Deno.env.get("DATABASE_URL"),
    mqttUrl: flag("mqtt-url") ?? Deno.env.get("MQTT_URL"),
    runs: Number(flag("runs") ?? 2),
    seconds: Number(flag("seconds") ?? 4),
    embedded: !Deno.args.includes("--no-embedded"),
    serviceRoot: flag("service-root"),
  });
  printTable(rows);
}
