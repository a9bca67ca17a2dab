/**
 * HTTP throughput of the device path (issue 13), measured the way an operator would: the service
 * runs as `deno task start` in its own process on PostgreSQL (logging silent), wrk runs in
 * another process on loopback, and a bare `Deno.serve` answering `{"status":"ok"}` is measured
 * in the same run as the baseline every figure is a ratio of.
 *
 * `deno task bench:http [--database-url postgres://…] [--connections 64] [--seconds 10]
 * [--runs 3]`. Needs wrk (Debian: `apt-get install wrk`).
 */
import postgres from "postgres";
import { createDatabase } from "../tests/helpers/server.ts";
import { freePort } from "../tests/helpers/ports.ts";
import {
  type BenchRow,
  median,
  printTable,
  registerBenchUser,
  SERVICE_V8_FLAGS,
  waitFor,
  wrk,
} from "./lib.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";

helpAndExit(
  Deno.args,
  `Usage: deno task bench:http [--database-url postgres://...] [--connections 64] [--seconds 10]
         [--runs 3]

wrk against the service (started as \`deno task start\` on PostgreSQL) and a bare Deno.serve on
loopback; prints requests per second and p99 as ratios of the bare baseline. Needs wrk.`,
);

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : fallback;
}

const databaseUrl = flag(
  "database-url",
  Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres",
);
const connections = Number(flag("connections", "64"));
const seconds = Number(flag("seconds", "10"));
const runs = Number(flag("runs", "3"));

/** One wrk run of this benchmark's shape: requests per second and p99 latency in ms. */
function measure(url: string, headers: Record<string, string> = {}) {
  return wrk(url, { threads: 2, connections, seconds, headers });
}

function spawn(args: string[], env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), { args, env, stdout: "null", stderr: "inherit" })
    .spawn();
}

/**
 * A claimed display of the user with its key (only the key's SHA-256 is stored) and, `withPush`,
 * a published push: the unchanged poll; without, the "nothing to show yet" screen (issue 40).
 */
async function claimedDisplay(sql: postgres.Sql, userId: string, withPush: boolean) {
  const displayDeviceId = crypto.randomUUID();
  const mac = displayDeviceId.slice(-12);
  const key = crypto.randomUUID().replaceAll("-", "") + "bench";
  const keyHash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)),
  ).toHex();
  await sql`INSERT INTO devices (id, hw_id, thing_name, owner_id, bound_at, transport)
    VALUES (${displayDeviceId}, ${mac}, ${`display-${mac}`}, ${userId}, now(), 'http')`;
  await sql`INSERT INTO displays (id, mac, key_hash, status, device_id, claimed_at)
    VALUES (${crypto.randomUUID()}, ${mac}, ${keyHash}, 'claimed', ${displayDeviceId}, now())`;
  if (withPush) {
    const pushId = crypto.randomUUID();
    const prefix = `render/${userId}/${displayDeviceId}/${pushId}/`;
    await sql`INSERT INTO pushes (id, device_id, user_id, title, summary, priority, status,
        template, params, render_prefix, published_at)
      VALUES (${pushId}, ${displayDeviceId}, ${userId}, 'bench', '', 0, 'PUBLISHED',
        'custom-image', ${sql.json({})}, ${prefix}, now())`;
    await sql`UPDATE devices SET latest_push_id = ${pushId}, latest_push_at = now()
      WHERE id = ${displayDeviceId}`;
  }
  return { key, mac: mac.toUpperCase().match(/../g)!.join(":") };
}

/**
 * Registers a user, and gives it a device whose latest push is rendered and published, a
 * claimed display (TRMNL's pull protocol) whose latest push is too, and one with nothing pushed.
 */
async function provision(base: string, dbUrl: string) {
  const reg = await registerBenchUser(base);
  const userId = reg.user.id as string;
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    const deviceId = crypto.randomUUID();
    const pushId = crypto.randomUUID();
    await sql`INSERT INTO devices (id, hw_id, thing_name, owner_id, bound_at)
      VALUES (${deviceId}, ${crypto.randomUUID().replaceAll("-", "")},
        ${`bench-${deviceId.slice(-8)}`}, ${userId}, now())`;
    const prefix = `render/${userId}/${deviceId}/${pushId}/`;
    await sql`INSERT INTO pushes (id, device_id, user_id, title, summary, priority, status,
        template, params, render_prefix, published_at)
      VALUES (${pushId}, ${deviceId}, ${userId}, 'bench', '', 0, 'PUBLISHED', 'custom-image',
        ${sql.json({})}, ${prefix}, now())`;
    await sql`UPDATE devices SET latest_push_id = ${pushId}, latest_push_at = now()
      WHERE id = ${deviceId}`;
    const display = await claimedDisplay(sql, userId, true);
    const ready = await claimedDisplay(sql, userId, false);
    return { token: reg.accessToken as string, deviceId, display, ready };
  } finally {
    await sql.end();
  }
}

if (import.meta.main) {
  const barePort = freePort();
  const bare = spawn(
    [
      "eval",
      "--node-modules-dir=manual",
      `Deno.serve({ port: ${barePort}, hostname: "127.0.0.1", onListen() {} }, () =>
        new Response('{"status":"ok"}', { headers: { "content-type": "application/json" } }))`,
    ],
    {},
  );
  const scratch = await createDatabase(databaseUrl);
  const port = freePort();
  const dataDir = await Deno.makeTempDir({ prefix: "dds-bench-http-" });
  const main = new URL("../src/main.ts", import.meta.url).pathname;
  // Manual: the bare server and the service start together; neither copies the linked
  // vendor/postgres again under the other (docs/deploy.md).
  const service = spawn(["run", "-A", "--node-modules-dir=manual", SERVICE_V8_FLAGS, main], {
    PORT: String(port),
    MQTT_PORT: String(freePort()),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    DATABASE_URL: scratch.url,
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`http://127.0.0.1:${barePort}/`);
    await waitFor(`${base}/ready`);
    const { token, deviceId, display, ready } = await provision(base, scratch.url);
    // What TRMNL's firmware sends on every wake (tests/displays_test.ts, TRMNL.md).
    const firmware = {
      ID: display.mac,
      "Access-Token": display.key,
      "Refresh-Rate": "900",
      "Battery-Voltage": "4.12",
      "FW-Version": "1.6.2",
      Model: "og",
      RSSI: "-61",
      Width: "800",
      Height: "480",
      "Update-Source": "timer",
    };
    const auth = { authorization: `Bearer ${token}` };
    const cases: Array<[string, string, Record<string, string>]> = [
      ["bare Deno.serve", `http://127.0.0.1:${barePort}/`, {}],
      ["GET /health", `${base}/health`, {}],
      ["GET /auth/me", `${base}/auth/me`, auth],
      [
        "GET /api/devices/{id}/push (latest push exists)",
        `${base}/api/devices/${deviceId}/push`,
        auth,
      ],
      [
        "GET /api/display (TRMNL poll, nothing new)",
        `${base}/api/display`,
        firmware,
      ],
      [
        "GET /api/display (claimed, nothing pushed yet)",
        `${base}/api/display`,
        { ...firmware, ID: ready.mac, "Access-Token": ready.key },
      ],
      ["GET /auth/me with an invalid bearer (401)", `${base}/auth/me`, {
        authorization: "Bearer not-a-token",
      }],
    ];
    const results = new Map<string, { rps: number[]; p99: number[] }>();
    for (let run = 1; run <= runs; run++) {
      for (const [name, url, headers] of cases) {
        const r = await measure(url, headers);
        const entry = results.get(name) ?? { rps: [], p99: [] };
        entry.rps.push(r.rps);
        entry.p99.push(r.p99);
        results.set(name, entry);
        const expectErrors = name.includes("401");
        if (!expectErrors && r.non2xx) console.error(`${name}: ${r.non2xx} non-2xx responses`);
        console.error(`run ${run}/${runs}: ${name}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms`);
      }
    }
    const bareRps = median(results.get("bare Deno.serve")!.rps);
    const rows: BenchRow[] = [];
    for (const [name, r] of results) {
      const rps = median(r.rps);
      rows.push({
        name: `${name}: requests per second (median of ${runs})`,
        value: Math.round(rps),
        unit: "req/s",
      });
      rows.push({
        name: `${name}: p99 latency (median of ${runs})`,
        value: median(r.p99),
        unit: "ms",
      });
      if (name !== "bare Deno.serve") {
        rows.push({
          name: `${name}: share of bare Deno.serve`,
          value: Math.round((rps / bareRps) * 1000) / 10,
          unit: "%",
        });
      }
    }
    console.log(`${connections} connections, ${seconds} s per run, PostgreSQL`);
    printTable(rows);
  } finally {
    service.kill("SIGTERM");
    bare.kill("SIGTERM");
    await Promise.allSettled([service.status, bare.status]);
    await scratch.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}
