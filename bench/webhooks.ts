/**
 * What webhooks cost a device report (issue 24): heartbeats per second through
 * `DevicesService.heartbeat` for an owner without webhooks and for one with a device webhook
 * (nothing to announce: the steady state), against the same run's baseline, the report's UPDATE
 * alone (what a heartbeat was before webhooks). In process, on PGlite or `--database-url`.
 */
import { type BenchRow, load, printTable, registerBenchUser } from "./lib.ts";
import { startTestServer } from "../tests/helpers/server.ts";
import { createDevice } from "../tests/helpers/devices.ts";
import * as devicesRepo from "../src/domains/devices/repository.ts";

const TOTAL = 2000;
const CONCURRENCY = 8;
const DEVICES = 50;

export async function benchWebhooks(
  options: { databaseUrl?: string } = {},
): Promise<BenchRow[]> {
  const server = await startTestServer({
    WEBHOOK_ALLOW_PRIVATE: "1",
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
  });
  try {
    const { services } = server.app;
    const plain = await registerBenchUser(server.url, `whplain${Date.now().toString(36)}`);
    const watched = await registerBenchUser(server.url, `whwatched${Date.now().toString(36)}`);
    await services.webhooks.create(watched.user.id, {
      url: "http://127.0.0.1:9/hook",
      events: ["device.online", "device.offline", "device.battery_low"],
    });
    const things = async (userId: string) => {
      const out: string[] = [];
      for (let i = 0; i < DEVICES; i++) out.push((await createDevice(server, userId)).thingName);
      return out;
    };
    const plainThings = await things(plain.user.id);
    const watchedThings = await things(watched.user.id);
    const beat = (names: string[]) => {
      let i = 0;
      return () => services.devices.heartbeat(names[i++ % names.length], { battery: 80 });
    };
    const baseline = () => {
      let i = 0;
      return async () => {
        await devicesRepo.updateDeviceByThing(services.db, plainThings[i++ % DEVICES], {
          last_seen_at: new Date(),
          online: true,
          battery: 80,
        });
      };
    };
    // The first beat of each watched device announces it online; the steady state follows.
    for (const name of watchedThings) await services.devices.heartbeat(name, { battery: 80 });
    // Warm-up of each path (the first measured one was otherwise the slowest, whichever it was).
    for (const task of [baseline(), beat(plainThings), beat(watchedThings)]) {
      await load(task, { total: 300, concurrency: CONCURRENCY });
    }
    const options_ = { total: TOTAL, concurrency: CONCURRENCY };
    const base = await load(baseline(), options_);
    const none = await load(beat(plainThings), options_);
    const some = await load(beat(watchedThings), options_);
    const engine = options.databaseUrl ? "postgres" : "pglite";
    const row = (name: string, r: { rps: number; p50: number }) => [
      { name: `${name}: heartbeats per second`, value: Math.round(r.rps), unit: "req/s" },
      { name: `${name}: p50 latency`, value: Math.round(r.p50 * 100) / 100, unit: "ms" },
    ];
    return [
      ...row("report UPDATE alone (baseline)", base),
      ...row("heartbeat, owner without webhooks", none),
      ...row("heartbeat, owner with a device webhook", some),
    ].map((r) => ({ ...r, name: `${r.name} (${engine}, ${CONCURRENCY} conc.)` }));
  } finally {
    await server.close();
  }
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--database-url");
  printTable(await benchWebhooks({ databaseUrl: i >= 0 ? Deno.args[i + 1] : undefined }));
  Deno.exit(0);
}
