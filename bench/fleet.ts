/**
 * Fleet burst benchmark (issue 26): N bound devices connect at once, as after a broker restart,
 * and each publishes `up/get_push`. Reports how many got their push, how many were told to retry
 * (`{"error":"busy","retryAfter"}` on `down/push`), how many got nothing, and the time to the last
 * first answer and to the last push, for 1,000 and 10,000 devices beside 100 in the same run.
 * The devices reconnect at once (every CONNECT in flight, 5 s CONNACK timeout, retried): the
 * time to the last CONNECT accepted and the timeouts are shown beside a bare aedes taking the
 * same CONNECTs, and `/health` p99 while they connect and ask beside a bare `Deno.serve`, both in
 * processes of their own (issue 40).
 * The service runs in this process (its database is reached directly to create the fleet in
 * bulk); the devices run in a worker, so they do not share the service's event loop.
 * On an external broker the figures include its own limits: Mosquitto's default
 * `max_queued_messages` (1,000 for the service's one client) drops most of a 10,000 burst before
 * the service sees it (docs/deploy.md).
 * Run alone (with `deno task start`'s V8 flags, as `deno task bench` runs it):
 * `deno run -A --v8-flags=--max-semi-space-size=8,--heap-growing-percent=100 bench/fleet.ts [--database-url postgres://…] [--mqtt-url mqtt://…]`.
 */
import { encodeBase64 } from "@oslojs/encoding";
import { sql } from "kysely";
import { splitLines } from "./fleet_devices.ts";
import { type BenchRow, printTable, registerBenchUser } from "./lib.ts";
import { parseConfig } from "../src/config.ts";
import { uuidv7 } from "../src/infra/lib/ids.ts";
import { deviceMqttPassword } from "../src/infra/mqtt/device_secret.ts";
import { startServer } from "../src/server.ts";
import { createDatabase } from "../tests/helpers/server.ts";

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** Connects reconnecting devices as a fleet does after a broker restart: all at once. */
const RECONNECT = { concurrency: 100_000, connectTimeoutMs: 5_000 };

/** A child process speaking JSON lines (its first line read at once). */
function spawnLines(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(splitLines())
    .getReader();
  return {
    async next() {
      const { value } = await lines.read();
      if (value === undefined) throw new Error("the child process ended");
      return JSON.parse(value as string);
    },
    async stop() {
      await child.stdin.close().catch(() => {});
    },
    status: child.status,
  };
}

/** `GET /health` latencies of the service and of a bare server, from another process. */
async function startProbe(origin: string) {
  const probe = spawnLines([
    "run",
    "-A",
    new URL("./fleet_probe.ts", import.meta.url).pathname,
    origin,
  ]);
  await probe.next();
  return async () => {
    await probe.stop();
    const result = await probe.next() as Record<"service" | "bare", Record<string, number>>;
    await probe.status;
    return result;
  };
}

/** One burst of `devices` from a fresh child process; resolves with its counts. */
async function burst(
  url: string,
  devices: Array<[string, string]>,
  timeoutMs: number,
  connectOnly = false,
  beforeClose: () => Promise<unknown> = () => Promise.resolve(),
): Promise<Record<string, number>> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./fleet_devices.ts", import.meta.url).pathname],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(splitLines())
    .getReader();
  const ask = async (message: unknown) => {
    await writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
    const { value } = await lines.read();
    if (value === undefined) throw new Error("the device process ended");
    return JSON.parse(value as string) as Record<string, number>;
  };
  try {
    const connected = await ask({ kind: "start", url, devices, ...RECONNECT });
    // Reported, not thrown: on a loaded machine even the bare aedes can leave devices out after
    // five timed-out CONNECTs each, and the other figures of the run are still worth having.
    if (connected.count !== devices.length) {
      console.error(
        `only ${connected.count} of ${devices.length} devices connected: ${
          JSON.stringify(connected.failures)
        }`,
      );
    }
    const result = connectOnly ? {} : await ask({ kind: "burst", timeoutMs });
    await beforeClose();
    await ask({ kind: "close" });
    return { ...result, ...connected, notConnected: devices.length - connected.count };
  } finally {
    await writer.close().catch(() => {});
    await child.status;
  }
}

/** Runs the fleet benchmark and returns its rows. */
export async function benchFleet(
  options: { sizes?: number[]; databaseUrl?: string; mqttUrl?: string } = {},
): Promise<BenchRow[]> {
  const sizes = options.sizes ?? [100, 1_000, 10_000];
  Deno.env.set("NODE_ENV", "production");
  const dataDir = await Deno.makeTempDir({ prefix: "dds-bench-" });
  const scratch = options.databaseUrl ? await createDatabase(options.databaseUrl) : undefined;
  const deviceKey = crypto.getRandomValues(new Uint8Array(32));
  const server = await startServer(parseConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    MQTT_PORT: "0",
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    DATABASE_URL: scratch?.url,
    MQTT_URL: options.mqttUrl,
    // Its own share group: on a shared broker no other service takes this fleet's messages.
    MQTT_SHARE_GROUP: `bench-${crypto.randomUUID().slice(0, 8)}`,
    MQTT_DEVICE_KEY: encodeBase64(deviceKey),
  }));
  const setup = `${scratch ? "PostgreSQL" : "PGlite"}, ${
    options.mqttUrl ? "Mosquitto" : "embedded broker"
  }`;
  try {
    const { services } = server.app;
    const mqttUrl = options.mqttUrl ?? server.app.mqttUrl;
    const reg = await registerBenchUser(server.url, "fleet");
    const userId = reg.user.id as string;
    // One set of rendered files shared by every push (the answer is a signed URL to them).
    const prefix = `render/${userId}/fleet/`;
    await services.storage.put(
      `${prefix}image.png`,
      new Uint8Array([137, 80, 78, 71]),
      "image/png",
    );
    await services.storage.put(
      `${prefix}image2.raw`,
      new Uint8Array(48000),
      "application/octet-stream",
    );
    await services.storage.put(
      `${prefix}image4.raw`,
      new Uint8Array(96000),
      "application/octet-stream",
    );
    const largest = Math.max(...sizes);
    const run = crypto.randomUUID().slice(0, 6);
    const fleet: Array<[string, string]> = [];
    for (let start = 0; start < largest; start += 500) {
      const devices = [], pushes = [];
      for (let i = start; i < Math.min(largest, start + 500); i++) {
        const id = uuidv7();
        const thingName = `fleet-${run}-${i}`;
        devices.push({
          id,
          hw_id: crypto.randomUUID().replaceAll("-", ""),
          thing_name: thingName,
          owner_id: userId,
          bound_at: new Date(),
          credential_version: 1,
        });
        pushes.push({
          id: uuidv7(),
          device_id: id,
          user_id: userId,
          title: "",
          status: "PUBLISHED" as const,
          priority: 0,
          template: "fleet",
          render_prefix: prefix,
          published_at: new Date(),
        });
        fleet.push([thingName, deviceMqttPassword(deviceKey, thingName, 1)]);
      }
      await services.db.insertInto("devices").values(devices).execute();
      await services.db.insertInto("pushes").values(pushes).execute();
    }
    await sql`update devices set latest_push_id = p.id from pushes p
      where p.device_id = devices.id and devices.latest_push_id is null`.execute(services.db);
    const rows: BenchRow[] = [];
    // The same run's baseline: a bare aedes (every client accepted) takes the largest fleet's
    // CONNECTs, from the same kind of device process.
    const bare = spawnLines([
      "run",
      "-A",
      new URL("./fleet_bare_broker.ts", import.meta.url).pathname,
    ]);
    const bareUrl = `mqtt://127.0.0.1:${(await bare.next()).port}`;
    for (const size of sizes) {
      const b = await burst(bareUrl, fleet.slice(0, size), 60_000, true);
      // Probed while the fleet connects and asks, not while it disconnects after.
      const stopProbe = await startProbe(server.url);
      let health: Awaited<ReturnType<typeof stopProbe>> | undefined;
      const r = await burst(mqttUrl, fleet.slice(0, size), 60_000, false, async () => {
        health = await stopProbe();
      });
      const label = `fleet burst, ${size} devices (${setup})`;
      rows.push(
        {
          name: `${label}: every CONNECT accepted (bare aedes: ${
            round(b.lastConnectedMs / 1000, 2)
          } s)`,
          value: round(r.lastConnectedMs / 1000, 2),
          unit: "s",
        },
        {
          name: `${label}: CONNECTs timed out after 5 s, sent again (bare aedes: ${b.timeouts})`,
          value: r.timeouts,
          unit: "CONNECTs",
        },
        {
          name: `${label}: devices not connected after 5 attempts (bare aedes: ${b.notConnected})`,
          value: r.notConnected,
          unit: "devices",
        },
        {
          name: `${label}: /health p99 during connect and burst (bare Deno.serve: ${
            round(health!.bare.p99)
          } ms; p50 ${round(health!.service.p50)} ms, max ${round(health!.service.max)} ms)`,
          value: round(health!.service.p99),
          unit: "ms",
        },
        { name: `${label}: answered with their push`, value: r.answered, unit: "devices" },
        { name: `${label}: told to retry (busy answers)`, value: r.busyAnswers, unit: "answers" },
        { name: `${label}: without their push (60 s)`, value: r.unanswered, unit: "devices" },
        {
          name: `${label}: without any answer (60 s)`,
          value: r.devices - r.firstAnswered,
          unit: "devices",
        },
        {
          name: `${label}: time to the last first answer`,
          value: round(r.lastFirstAnswerMs / 1000, 2),
          unit: "s",
        },
        {
          name: `${label}: time to the last push`,
          value: round(r.lastFinalAnswerMs / 1000, 2),
          unit: "s",
        },
      );
    }
    await bare.stop();
    await bare.status;
    return rows;
  } finally {
    await server.shutdown();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await scratch?.drop();
  }
}

if (import.meta.main) {
  const flag = (name: string) => {
    const i = Deno.args.indexOf(name);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  const sizes = flag("--sizes")?.split(",").map(Number);
  printTable(
    await benchFleet({ sizes, databaseUrl: flag("--database-url"), mqttUrl: flag("--mqtt-url") }),
  );
  Deno.exit(0);
}
