/**
 * Display poll benchmark (issue 24): what the firmware offer and the button cost a claimed
 * display's `GET /api/display`. Same run, same display: the whole poll over HTTP (the baseline
 * the extras are part of), then the two extras alone, called directly as the poll calls them:
 * a display never offered anything (the button read, the offer row read and the rollout query)
 * and one offered within the day (two primary-key reads). Sequential requests, p50 of each.
 * Run alone (with `deno task start`'s V8 flags, as `deno task bench` runs it):
 * `deno run -A --v8-flags=--max-semi-space-size=8,--heap-growing-percent=100 bench/display_poll.ts [--database-url postgres://…]`.
 */
import { type BenchRow, median, printTable, registerBenchUser } from "./lib.ts";
import { parseConfig } from "../src/config.ts";
import { startServer } from "../src/server.ts";
import { createDatabase } from "../tests/helpers/server.ts";

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

async function timed(n: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await work();
    times.push(performance.now() - t);
  }
  return median(times);
}

/** Runs the display poll benchmark and returns its rows. */
export async function benchDisplayPoll(
  options: { requests?: number; databaseUrl?: string } = {},
): Promise<BenchRow[]> {
  const n = options.requests ?? 300;
  Deno.env.set("NODE_ENV", "production");
  const dataDir = await Deno.makeTempDir({ prefix: "dds-bench-" });
  const scratch = options.databaseUrl ? await createDatabase(options.databaseUrl) : undefined;
  const server = await startServer(parseConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    MQTT_PORT: "0",
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    DATABASE_URL: scratch?.url,
  }));
  const engine = scratch ? "PostgreSQL" : "PGlite";
  try {
    const { services } = server.app;
    const reg = await registerBenchUser(server.url);
    const mac = "AA:BB:CC:00:11:22";
    const setup = await (await fetch(`${server.url}/api/setup`, { headers: { ID: mac } })).json();
    const claim = await (await fetch(`${server.url}/api/devices/claim`, {
      method: "POST",
      headers: { authorization: `Bearer ${reg.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ code: setup.friendly_id }),
    })).json();
    const deviceId = claim.device.id as string;
    const headers = { ID: mac, "Access-Token": setup.api_key, "FW-Version": "1.6.2", Model: "og" };
    const poll = async () => {
      const res = await fetch(`${server.url}/api/display`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`poll answered ${res.status}`);
    };
    await timed(20, poll); // warm-up
    const whole = await timed(n, poll);
    const device = (await services.devices.byId(deviceId))!;
    const reqHeaders = new Headers(headers);
    const fit = {
      id: deviceId,
      thingName: device.thing_name,
      batchId: null,
      sku: null,
      model: "og",
      firmware: "1.6.2",
    };
    const extras = () =>
      Promise.all([
        services.buttons.onPoll(
          { id: deviceId, owner_id: device.owner_id!, thing_name: device.thing_name },
          reqHeaders,
        ),
        services.firmwareUpdates.forDisplay(fit),
      ]);
    const never = await timed(n, extras);
    // An offer within the day: the row says so, the rollout is not asked.
    await services.db.insertInto("device_firmware")
      .values({ device_id: deviceId, offered_at: new Date() }).execute();
    const offered = await timed(n, extras);
    const rows: BenchRow[] = [
      { name: "GET /api/display, whole poll: p50", value: round(whole), unit: "ms" },
      { name: "poll extras, never offered: p50", value: round(never), unit: "ms" },
      { name: "poll extras, offered today: p50", value: round(offered), unit: "ms" },
    ];
    return rows.map((row) => ({ ...row, name: `${row.name} (${engine}, sequential)` }));
  } finally {
    await server.shutdown();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await scratch?.drop();
  }
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--database-url");
  printTable(await benchDisplayPoll({ databaseUrl: i >= 0 ? Deno.args[i + 1] : undefined }));
}
