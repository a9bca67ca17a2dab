/**
 * Push retrieval benchmark (issue 4): `GET /api/devices/{id}/push` requests per second and
 * p50/p99 latency on a started service, idle and while renders keep the Piscina pool busy in the
 * background. Embedded defaults (PGlite, embedded broker, disk store) on ephemeral ports, or a
 * scratch database on a PostgreSQL server.
 * Run alone (with `deno task start`'s V8 flags, as `deno task bench` runs it):
 * `deno run -A --v8-flags=--max-semi-space-size=8,--heap-growing-percent=100 bench/push.ts [--database-url postgres://postgres@127.0.0.1:5432/postgres]`.
 */
import { type BenchRow, printTable, registerBenchUser } from "./lib.ts";
import { benchPhoto } from "./photo.ts";
import { parseConfig } from "../src/config.ts";
import { uuidv7 } from "../src/infra/lib/ids.ts";
import { startServer } from "../src/server.ts";
import { createDatabase } from "../tests/helpers/server.ts";

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** Sends GET .../push from `concurrency` loops for `seconds`; returns rps, p50 and p99. */
async function load(url: string, token: string, seconds: number, concurrency: number) {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const t = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET push answered ${res.status}`);
      latencies.push(performance.now() - t);
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

/** Runs the push benchmark and returns its rows. */
export async function benchPush(
  options: { seconds?: number; concurrency?: number; databaseUrl?: string } = {},
): Promise<BenchRow[]> {
  const seconds = options.seconds ?? 5;
  const concurrency = options.concurrency ?? 8;
  // As `deno task start` (loadConfig) runs: trpc-to-openapi is ~2x slower outside production.
  Deno.env.set("NODE_ENV", "production");
  const dataDir = await Deno.makeTempDir({ prefix: "dds-bench-" });
  // With a server URL, a scratch database on it (created here, dropped after).
  const scratch = options.databaseUrl ? await createDatabase(options.databaseUrl) : undefined;
  const databaseUrl = scratch?.url;
  const server = await startServer(parseConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    MQTT_PORT: "0",
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    DATABASE_URL: databaseUrl,
  }));
  const engine = databaseUrl ? "PostgreSQL" : "PGlite";
  try {
    const { services } = server.app;
    const reg = await registerBenchUser(server.url);
    const userId = reg.user.id as string;
    const deviceId = uuidv7();
    await services.db.insertInto("devices").values({
      id: deviceId,
      hw_id: crypto.randomUUID().replaceAll("-", ""),
      thing_name: `bench-${deviceId.slice(-8)}`,
      owner_id: userId,
      bound_at: new Date(),
    }).execute();
    // One rendered push, published by the first request; the rest read it (rule 1).
    const push = await services.pushes.create({ userId, deviceId, template: "custom-image" });
    const bitmaps = await services.renderer.renderImage(await benchPhoto());
    const prefix = `render/${userId}/${deviceId}/${push.id}/`;
    await services.storage.put(`${prefix}image.png`, bitmaps.png, "image/png");
    await services.storage.put(`${prefix}image2.raw`, bitmaps.raw2, "application/octet-stream");
    await services.storage.put(`${prefix}image4.raw`, bitmaps.raw4, "application/octet-stream");
    await services.db.updateTable("pushes").set({ status: "QUEUE", render_prefix: prefix })
      .where("id", "=", push.id).execute();
    const url = `${server.url}/api/devices/${deviceId}/push?format=raw2`;
    await load(url, reg.accessToken, 1, 2); // warm-up
    const idle = await load(url, reg.accessToken, seconds, concurrency);

    // Background: keep two renders in flight on the pool for the whole measurement.
    const source = await benchPhoto();
    let rendering = true;
    let rendered = 0;
    const background = Array.from({ length: 2 }, async () => {
      while (rendering) {
        await services.renderer.renderImage(source);
        rendered++;
      }
    });
    const busy = await load(url, reg.accessToken, seconds, concurrency);
    rendering = false;
    await Promise.all(background);
    const rows: BenchRow[] = [
      { name: "GET push, idle: requests per second", value: round(idle.rps, 0), unit: "req/s" },
      { name: "GET push, idle: p50 latency", value: round(idle.p50, 2), unit: "ms" },
      { name: "GET push, idle: p99 latency", value: round(idle.p99, 2), unit: "ms" },
      {
        name: "GET push, renders in background: requests per second",
        value: round(busy.rps, 0),
        unit: "req/s",
      },
      {
        name: "GET push, renders in background: p50 latency",
        value: round(busy.p50, 2),
        unit: "ms",
      },
      {
        name: "GET push, renders in background: p99 latency",
        value: round(busy.p99, 2),
        unit: "ms",
      },
      {
        name: "background renders completed meanwhile",
        value: round(rendered / seconds, 1),
        unit: "renders/s",
      },
    ];
    return rows.map((row) => ({ ...row, name: `${row.name} (${engine}, ${concurrency} clients)` }));
  } finally {
    await server.shutdown();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await scratch?.drop();
  }
}

if (import.meta.main) {
  // `--database-url postgres://…` measures on a real PostgreSQL server instead of PGlite.
  const i = Deno.args.indexOf("--database-url");
  const databaseUrl = i >= 0 ? Deno.args[i + 1] : undefined;
  printTable(await benchPush({ databaseUrl }));
  Deno.exit(0);
}
