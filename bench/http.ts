/**
 * HTTP throughput of the device path (issue 13), measured the way an operator would: the service
 * runs as `deno task start` in its own process on PostgreSQL (logging silent), wrk runs in
 * another process on loopback, and a bare `Deno.serve` answering `{"status":"ok"}` is measured
 * in the same run as the baseline every figure is a ratio of.
 *
 * Issue 40 adds fleets: N claimed displays with a push and N with nothing pushed, every request
 * another display of the N in turn (a wrk script rotates `ID` and `Access-Token`).
 *
 * `deno task bench:http [--database-url postgres://…] [--connections 64] [--seconds 10]
 * [--runs 3] [--fleets 1000,100] [--only TEXT]`. Needs wrk (Debian: `apt-get install wrk`).
 */
import postgres from "postgres";
import { createDatabase } from "../tests/helpers/server.ts";
import { freePort } from "../tests/helpers/ports.ts";
import {
  type BenchRow,
  cpuMs,
  median,
  printTable,
  registerBenchUser,
  SERVICE_V8_FLAGS,
  waitFor,
  wrk,
} from "./lib.ts";
import { helpAndExit } from "../src/infra/lib/usage.ts";

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : fallback;
}

function spawn(args: string[], env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), { args, env, stdout: "null", stderr: "inherit" })
    .spawn();
}

/** A claimed display's poll credentials: its key, and its MAC as the firmware's `ID` sends it. */
interface DisplayCredentials {
  key: string;
  mac: string;
}

/**
 * `count` claimed displays of the user with their keys (only a key's SHA-256 is stored) and,
 * `withPush`, a published push each: the unchanged poll; without, the "nothing to show yet"
 * screen (issue 40). Written in batches of rows, so a fleet of 1,000 takes a moment.
 */
async function claimedDisplays(
  sql: postgres.Sql,
  userId: string,
  withPush: boolean,
  count = 1,
): Promise<DisplayCredentials[]> {
  const made: DisplayCredentials[] = [];
  for (let start = 0; start < count; start += 250) {
    const devices = [], displays = [], pushes = [];
    for (let i = start; i < Math.min(count, start + 250); i++) {
      const deviceId = crypto.randomUUID();
      const mac = deviceId.slice(-12);
      const key = crypto.randomUUID().replaceAll("-", "") + "bench";
      const keyHash = new Uint8Array(
        await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)),
      ).toHex();
      devices.push({
        id: deviceId,
        hw_id: mac,
        thing_name: `display-${mac}`,
        owner_id: userId,
        bound_at: new Date(),
        transport: "http",
      });
      displays.push({
        id: crypto.randomUUID(),
        mac,
        key_hash: keyHash,
        status: "claimed",
        device_id: deviceId,
        claimed_at: new Date(),
      });
      if (withPush) {
        const pushId = crypto.randomUUID();
        pushes.push({
          id: pushId,
          device_id: deviceId,
          user_id: userId,
          title: "bench",
          summary: "",
          priority: 0,
          status: "PUBLISHED",
          template: "custom-image",
          params: sql.json({}),
          render_prefix: `render/${userId}/${deviceId}/${pushId}/`,
          published_at: new Date(),
        });
      }
      made.push({ key, mac: mac.toUpperCase().match(/../g)!.join(":") });
    }
    await sql`INSERT INTO devices ${sql(devices)}`;
    await sql`INSERT INTO displays ${sql(displays)}`;
    if (pushes.length > 0) {
      await sql`INSERT INTO pushes ${sql(pushes)}`;
      await sql`UPDATE devices SET latest_push_id = pushes.id, latest_push_at = now()
        FROM pushes WHERE pushes.device_id = devices.id
          AND devices.id IN ${sql(devices.map((d) => d.id))}`;
    }
  }
  return made;
}

/**
 * A wrk script that sends each request as another display of `fleet`, in turn (a fleet is many
 * displays, each polling now and then, not one polled by every connection at once). Each wrk
 * thread starts at another place in the list. `newReports`: each poll reports another RSSI, so
 * each writes its report, as a real fleet's polls do (they come minutes apart; a report is
 * written when it changed or a minute after the last).
 */
export function fleetScript(fleet: DisplayCredentials[], newReports = false): string {
  const list = (values: string[]) => `{${values.map((v) => JSON.stringify(v)).join(",")}}`;
  return `local macs = ${list(fleet.map((d) => d.mac))}
local keys = ${list(fleet.map((d) => d.key))}
local threads = 0
function setup(thread)
  thread:set("offset", threads * 7919)
  threads = threads + 1
end
local i = 0
function init(args)
  i = offset or 0
end
function request()
  i = i + 1
  local n = (i % #macs) + 1
  wrk.headers["ID"] = macs[n]
  wrk.headers["Access-Token"] = keys[n]
${
    newReports
      ? '  wrk.headers["RSSI"] = tostring(-30 - (i % 61))\n'
      : ""
  }  return wrk.format(nil, nil)
end
`;
}

/**
 * Registers a user, and gives it a device whose latest push is rendered and published, a
 * claimed display (TRMNL's pull protocol) whose latest push is too, one with nothing pushed, and
 * the fleets: `fleet` claimed displays each with a push and as many with nothing pushed.
 */
async function provision(base: string, dbUrl: string, fleets: number[]) {
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
    const [display] = await claimedDisplays(sql, userId, true);
    const [ready] = await claimedDisplays(sql, userId, false);
    const fleetsMade = [];
    for (const size of fleets) {
      fleetsMade.push({
        size,
        withPush: await claimedDisplays(sql, userId, true, size),
        nothingPushed: await claimedDisplays(sql, userId, false, size),
      });
    }
    return { token: reg.accessToken as string, deviceId, display, ready, fleets: fleetsMade };
  } finally {
    await sql.end();
  }
}

/** Polls each display of `fleet` twice, eight at a time (its panel reported, its push shown). */
async function warmFleet(url: string, fleet: DisplayCredentials[]) {
  let next = 0;
  const worker = async () => {
    while (next < fleet.length) {
      const { mac, key } = fleet[next++];
      for (let i = 0; i < 2; i++) {
        const res = await fetch(url, {
          headers: { ID: mac, "Access-Token": key, Model: "og", Width: "800", Height: "480" },
        });
        if (!res.ok) throw new Error(`warming the fleet: ${res.status} ${await res.text()}`);
        await res.body?.cancel();
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** One measured shape: its name, URL, headers, and a wrk script when it has one. */
interface Case {
  name: string;
  url: string;
  headers: Record<string, string>;
  script?: string;
}

/**
 * Runs the HTTP benchmark: the service (`deno task start` on a scratch PostgreSQL database) and a
 * bare `Deno.serve` as child processes, wrk against each case `runs` times in turn; the rows are
 * medians, and each case's share of the bare server's median in the same run. `only` keeps the
 * cases whose name contains it (the bare baseline always runs).
 */
export async function benchHttp(options: {
  databaseUrl: string;
  connections?: number;
  seconds?: number;
  runs?: number;
  fleets?: number[];
  only?: string;
  /** Another checkout whose service is measured (a "before" figure); this one by default. */
  serviceRoot?: string;
}): Promise<BenchRow[]> {
  const connections = options.connections ?? 64;
  const seconds = options.seconds ?? 10;
  const runs = options.runs ?? 3;
  const measure = (c: Case) =>
    wrk(c.url, { threads: 2, connections, seconds, headers: c.headers, script: c.script });
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
  const scratch = await createDatabase(options.databaseUrl);
  const port = freePort();
  const dataDir = await Deno.makeTempDir({ prefix: "dds-bench-http-" });
  const main = options.serviceRoot
    ? `${options.serviceRoot.replace(/\/$/, "")}/src/main.ts`
    : new URL("../src/main.ts", import.meta.url).pathname;
  // Manual: the bare server and the service start together; neither copies the linked
  // vendor/postgres again under the other (docs/deploy.md).
  const service = spawn([
    "run",
    "-A",
    "--node-modules-dir=manual",
    SERVICE_V8_FLAGS,
    ...(Deno.env.get("BENCH_HTTP_CPU_PROF")
      ? ["--cpu-prof", `--cpu-prof-dir=${Deno.env.get("BENCH_HTTP_CPU_PROF")}`]
      : []),
    main,
  ], {
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
    const provisioned = await provision(base, scratch.url, options.fleets ?? [1000, 100]);
    const { token, deviceId, display, ready } = provisioned;
    // A fleet that has polled before: each display has reported its panel and shown its push
    // (its second poll confirms it), as after a restart; what is measured is the polls after.
    for (const { withPush, nothingPushed } of provisioned.fleets) {
      await warmFleet(`${base}/api/display`, [...withPush, ...nothingPushed]);
    }
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
    const poll = `${base}/api/display`;
    const all: Case[] = [
      { name: "bare Deno.serve", url: `http://127.0.0.1:${barePort}/`, headers: {} },
      { name: "GET /health", url: `${base}/health`, headers: {} },
      { name: "GET /auth/me", url: `${base}/auth/me`, headers: auth },
      {
        name: "GET /api/devices/{id}/push (latest push exists)",
        url: `${base}/api/devices/${deviceId}/push`,
        headers: auth,
      },
      { name: "GET /api/display (TRMNL poll, nothing new)", url: poll, headers: firmware },
      {
        name: "GET /api/display (claimed, nothing pushed yet)",
        url: poll,
        headers: { ...firmware, ID: ready.mac, "Access-Token": ready.key },
      },
      // A fleet: every request another display (issue 40).
      ...provisioned.fleets.flatMap(({ size, withPush, nothingPushed }) => [
        {
          name: `GET /api/display, ${size} displays with a push in turn`,
          url: poll,
          headers: firmware,
          script: fleetScript(withPush),
        },
        {
          name: `GET /api/display, ${size} displays with nothing pushed in turn`,
          url: poll,
          headers: firmware,
          script: fleetScript(nothingPushed),
        },
        {
          name: `GET /api/display, ${size} displays with a push in turn, each poll a new report`,
          url: poll,
          headers: firmware,
          script: fleetScript(withPush, true),
        },
      ]),
      {
        name: "GET /auth/me with an invalid bearer (401)",
        url: `${base}/auth/me`,
        headers: { authorization: "Bearer not-a-token" },
      },
    ];
    const cases = all.filter((c, i) => i === 0 || !options.only || c.name.includes(options.only));
    const results = new Map<string, { rps: number[]; p99: number[]; cpu: number[] }>();
    for (let run = 1; run <= runs; run++) {
      for (const c of cases) {
        // The server's own CPU time per request: what a request costs it, whatever else the
        // machine runs meanwhile (req/s and p99 move with the load; this moves much less).
        const pid = c === all[0] ? bare.pid : service.pid;
        const before = await cpuMs(pid);
        const r = await measure(c);
        const cpuUs = (await cpuMs(pid) - before) * 1000 / r.requests;
        const entry = results.get(c.name) ?? { rps: [], p99: [], cpu: [] };
        entry.rps.push(r.rps);
        entry.p99.push(r.p99);
        entry.cpu.push(cpuUs);
        results.set(c.name, entry);
        const expectErrors = c.name.includes("401");
        if (!expectErrors && r.non2xx) console.error(`${c.name}: ${r.non2xx} non-2xx responses`);
        console.error(
          `run ${run}/${runs}: ${c.name}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms, ${
            cpuUs.toFixed(1)
          } µs CPU a request`,
        );
      }
    }
    const bareRps = median(results.get("bare Deno.serve")!.rps);
    const bareCpu = median(results.get("bare Deno.serve")!.cpu);
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
      rows.push({
        name: `${name}: server CPU per request (median of ${runs})`,
        value: Math.round(median(r.cpu) * 10) / 10,
        unit: "µs",
      });
      if (name !== "bare Deno.serve") {
        rows.push({
          name: `${name}: share of bare Deno.serve`,
          value: Math.round((rps / bareRps) * 1000) / 10,
          unit: "%",
        });
        rows.push({
          name: `${name}: bare's CPU per request as a share of this one's`,
          value: Math.round((bareCpu / median(r.cpu)) * 1000) / 10,
          unit: "%",
        });
      }
    }
    return rows;
  } finally {
    service.kill("SIGTERM");
    bare.kill("SIGTERM");
    await Promise.allSettled([service.status, bare.status]);
    await scratch.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  helpAndExit(
    Deno.args,
    `Usage: deno task bench:http [--database-url postgres://...] [--connections 64] [--seconds 10]
         [--runs 3] [--fleets 1000,100] [--only TEXT] [--service-root DIR]

wrk against the service (started as \`deno task start\` on PostgreSQL) and a bare Deno.serve on
loopback; prints requests per second and p99 as ratios of the bare baseline. --fleets: the sizes
of the fleets polled in turn (every request another display; with a push and with nothing
pushed; each display polled twice before). --only: the cases whose name contains TEXT (and the bare
baseline). --service-root: measure the service of another checkout. BENCH_HTTP_CPU_PROF=DIR
writes the service's CPU profile there when it stops. Needs wrk.`,
  );
  const connections = Number(flag("connections", "64"));
  const seconds = Number(flag("seconds", "10"));
  const rows = await benchHttp({
    databaseUrl: flag(
      "database-url",
      Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres",
    ),
    connections,
    seconds,
    runs: Number(flag("runs", "3")),
    fleets: flag("fleets", "1000,100").split(",").filter(Boolean).map(Number),
    only: flag("only", "") || undefined,
    serviceRoot: flag("service-root", "") || undefined,
  });
  console.log(`${connections} connections, ${seconds} s per run, PostgreSQL`);
  printTable(rows);
}
