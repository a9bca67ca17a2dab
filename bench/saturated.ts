/**
 * The request path while the render pool is saturated by previews (issue 26): p99 of `/health`
 * and of a device's `GET /api/devices/{id}/push` under wrk (64 connections, another process),
 * first with the pool idle (the baseline of the same run), then while four users keep the pool
 * busy with costly Scene previews (two each in flight, ~1 s of drawing apiece). Renders run on
 * worker threads at a lower priority (src/infra/render/thread_priority.ts); the goal is saturated p99
 * within 2x idle. A bare `Deno.serve` is measured beside them.
 *
 * Run alone: `deno run -A bench/saturated.ts [--database-url postgres://…] [--seconds 6]`.
 * Needs wrk.
 */
import { createDatabase } from "../tests/helpers/server.ts";
import { type BenchRow, hasWrk, printTable, registerBenchUser, wrk } from "./lib.ts";
import { provision, spawnBare, spawnService } from "./rest.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";
import { heavyEllipses } from "./scene.ts";

/** ~1 s of drawing (bench/fairness.ts's flood, smaller). */
const HEAVY_SCENE = heavyEllipses(1600, 800);

/** Keeps previews in flight until `stop` is called; resolves with how many were answered. */
function flood(base: string, tokens: string[], perUser: number) {
  let running = true;
  const answers = new Map<number, number>();
  const lane = async (token: string) => {
    while (running) {
      try {
        const res = await fetch(`${base}/api/app/v1/scenes/preview`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify(HEAVY_SCENE),
        });
        await res.body?.cancel();
        answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
        // A 503 (queue full for this user) is retried after a breath, as a client would.
        if (res.status === 503) await new Promise((r) => setTimeout(r, 100));
      } catch { /* the service is stopping */ }
    }
  };
  const lanes = tokens.flatMap((t) => Array.from({ length: perUser }, () => lane(t)));
  return {
    async stop() {
      running = false;
      await Promise.all(lanes);
      return answers;
    },
  };
}

export async function benchSaturated(
  options: { databaseUrl?: string; seconds?: number } = {},
): Promise<BenchRow[]> {
  if (!await hasWrk()) return [];
  const seconds = options.seconds ?? 6;
  const scratch = options.databaseUrl ? await createDatabase(options.databaseUrl) : undefined;
  const env: Record<string, string> = scratch ? { DATABASE_URL: scratch.url } : {};
  const dataDir = await Deno.makeTempDir({ prefix: "dds-bench-saturated-" });
  const rows: BenchRow[] = [];
  const row = (name: string, value: number, unit = "ms") =>
    rows.push({ name: `saturated: ${name}`, value, unit });
  try {
    const first = await spawnService(env, dataDir);
    const owner = await registerBenchUser(first.url);
    const flooders = await Promise.all(
      Array.from({ length: 4 }, (_, i) => registerBenchUser(first.url, `flood${i}`)),
    );
    await first.stop();
    const deviceId = await provision(dataDir, env.DATABASE_URL, owner.user.id);
    const service = await spawnService(env, dataDir);
    const bare = await spawnBare();
    try {
      const load = (url: string, headers: Record<string, string> = {}) =>
        wrk(url, { threads: 2, connections: 64, seconds, headers });
      const auth = { authorization: `Bearer ${owner.accessToken}` };
      const push = `${service.url}/api/devices/${deviceId}/push`;
      // Past the cold seconds first: both phases measure a warm process.
      await load(push, auth);
      const idle = {
        bare: await load(`${bare.url}/`),
        health: await load(`${service.url}/health`),
        push: await load(push, auth),
      };
      const busy = flood(service.url, flooders.map((f) => f.accessToken), 2);
      await new Promise((r) => setTimeout(r, 1_000));
      const saturated = {
        bare: await load(`${bare.url}/`),
        health: await load(`${service.url}/health`),
        push: await load(push, auth),
      };
      const answers = await busy.stop();
      row("bare Deno.serve p99, service idle (baseline)", idle.bare.p99);
      row("bare Deno.serve p99, service's pool saturated", saturated.bare.p99);
      for (const what of ["health", "push"] as const) {
        const label = what === "health" ? "GET /health" : "GET /api/devices/{id}/push";
        row(`${label} p99, pool idle`, idle[what].p99);
        row(`${label} p99, pool saturated by previews`, saturated[what].p99);
        row(`${label} p99 saturated / idle`, saturated[what].p99 / idle[what].p99, "x");
        row(`${label} req/s, pool saturated`, saturated[what].rps, "req/s");
      }
      row("previews answered 200 during the saturated phase", answers.get(200) ?? 0, "previews");
      row(
        "previews answered 503 (retry) during the saturated phase",
        answers.get(503) ?? 0,
        "previews",
      );
    } finally {
      await bare.stop();
      await service.stop();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await scratch?.drop();
  }
  return rows;
}

if (import.meta.main) {
  helpAndExit(
    Deno.args,
    `Usage: deno run -A bench/saturated.ts [--database-url postgres://...] [--seconds 6]

p99 of /health and the device push path with the render pool idle, then saturated by Scene
previews, beside a bare Deno.serve. Needs wrk.`,
  );
  const flag = (name: string) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  printTable(
    await benchSaturated({
      databaseUrl: flag("database-url") ?? Deno.env.get("DATABASE_URL"),
      seconds: Number(flag("seconds") ?? 6),
    }),
  );
}
