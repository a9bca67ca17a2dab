/**
 * Custom-push burst (issue 12): 12 photos uploaded to one device, then confirmed over HTTP at
 * once on the embedded defaults (PGlite, disk store, embedded broker); the time from the first
 * confirm to the last push in QUEUE (its `rendered_at`), i.e. queue pickup, render, storage and
 * the QUEUE transaction of every push.
 * `BENCH_VERBOSE=1` prints each burst's CPU by thread (the request loop, the render workers, libvips,
 * V8's compiler threads).
 * Run alone (with `deno task start`'s V8 flags, as `deno task bench` runs it):
 * `deno run -A --v8-flags=--max-semi-space-size=8,--heap-growing-percent=100 bench/burst.ts [--database-url postgres://…]`.
 */
import { type BenchRow, cpuMs, printTable, threadCpu, threadCpuSince } from "./lib.ts";
import { benchPhoto } from "./photo.ts";
import { parseConfig } from "../src/config.ts";
import { uuidv7 } from "../src/infra/lib/ids.ts";
import { startServer } from "../src/server.ts";
import { createDatabase } from "../tests/helpers/server.ts";

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

async function post(url: string, token: string, body: unknown) {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

async function upload(ticket: { url: string; fields: Record<string, string> }, bytes: Uint8Array) {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticket.fields)) form.append(k, v);
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/jpeg" }), "p");
  const res = await fetch(ticket.url, { method: "POST", body: form });
  await res.body?.cancel();
  if (res.status !== 204) throw new Error(`upload answered ${res.status}`);
}

/** What a burst took: its seconds, and the CPU the process used meanwhile (ms; NaN off Linux). */
interface BurstResult {
  seconds: number;
  /** All threads: the request loop, the render workers, libvips, V8's compiler and collector. */
  cpuMs: number;
  /** The request loop's thread alone (the HTTP answers, the jobs, PGlite). */
  loopCpuMs: number;
}

/**
 * Bursts on a fresh service: 12 photos uploaded, then confirmed at once; seconds from the first
 * confirm to the last QUEUE, and the CPU the process used from the first confirm until the poll
 * that saw the last QUEUE (up to 100 ms more). On a machine shared with other work the CPU says
 * what the burst cost where its seconds also say how much of the machine it got. The first burst
 * is the fresh service's (the figure); the second, of other photos in the same service, is the
 * same work with V8's code for it compiled and the render workers warm (issue 40: where the
 * fresh one's time goes).
 */
async function bursts(count: number, rounds: number, databaseUrl?: string) {
  Deno.env.set("NODE_ENV", "production");
  const dataDir = await Deno.makeTempDir({ prefix: "dds-burst-" });
  const scratch = databaseUrl ? await createDatabase(databaseUrl) : undefined;
  const server = await startServer(parseConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    MQTT_PORT: "0",
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    DATABASE_URL: scratch?.url,
  }));
  try {
    const { services } = server.app;
    const reg = await post(`${server.url}/auth/register`, "", {
      email: "burst@example.com",
      username: "burst",
      password: "benchmark-password",
    });
    const deviceId = uuidv7();
    await services.db.insertInto("devices").values({
      id: deviceId,
      hw_id: crypto.randomUUID().replaceAll("-", ""),
      thing_name: `burst-${deviceId.slice(-8)}`,
      owner_id: reg.user.id,
      bound_at: new Date(),
    }).execute();
    const base = `${server.url}/api/devices/${deviceId}/custom-push`;
    const results: BurstResult[] = [];
    for (let round = 0; round < rounds; round++) {
      // Different photos, so no two renders are identical (nothing is deduplicated).
      const tickets = [];
      for (let i = 0; i < count; i++) {
        const photo = await benchPhoto(round * count + i);
        const ticket = await post(`${base}/upload`, reg.accessToken, {
          contentType: "image/jpeg",
          sizeBytes: photo.length,
        });
        await upload(ticket, photo);
        tickets.push(ticket);
      }
      results.push(await confirmAll(base, reg.accessToken, tickets, services.db));
    }
    return results;
  } finally {
    await server.shutdown();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await scratch?.drop();
  }
}

/** Confirms every upload at once and waits for the last QUEUE. */
async function confirmAll(
  base: string,
  token: string,
  tickets: { fileId: string }[],
  db: Awaited<ReturnType<typeof startServer>>["app"]["services"]["db"],
): Promise<BurstResult> {
  const [cpuStart, loopStart] = [await cpuMs(Deno.pid), await cpuMs(Deno.pid, Deno.pid)];
  const threadsBefore = await threadCpu();
  const start = Date.now();
  const pushIds = await Promise.all(
    tickets.map(async (t) =>
      (await post(`${base}/confirm`, token, { fileId: t.fileId })).pushId as string
    ),
  );
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const rows = await db.selectFrom("pushes").select(["status", "rendered_at"])
      .where("id", "in", pushIds).execute();
    if (rows.every((r) => r.status === "QUEUE" && r.rendered_at)) {
      const last = Math.max(...rows.map((r) => r.rendered_at!.getTime()));
      if (Deno.env.get("BENCH_VERBOSE")) {
        console.error(
          "CPU ms by thread over the burst:",
          JSON.stringify(threadCpuSince(threadsBefore, await threadCpu())),
        );
      }
      return {
        seconds: (last - start) / 1000,
        cpuMs: await cpuMs(Deno.pid) - cpuStart,
        loopCpuMs: await cpuMs(Deno.pid, Deno.pid) - loopStart,
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("burst did not finish in 120 s");
}

/** Runs the burst benchmark and returns its rows. */
export async function benchBurst(
  options: { count?: number; databaseUrl?: string } = {},
): Promise<BenchRow[]> {
  const count = options.count ?? 12;
  const [fresh, again] = await bursts(count, 2, options.databaseUrl);
  const engine = options.databaseUrl ? "PostgreSQL" : "PGlite";
  const rows = (result: BurstResult, label: string, which: string): BenchRow[] => [
    {
      name: `burst${which}: ${label}, first confirm → last QUEUE (${engine})`,
      value: round(result.seconds, 2),
      unit: "s",
    },
    {
      name: `burst${which}: the same as a rate (${engine})`,
      value: round(count / result.seconds),
      unit: "pushes/s",
    },
    {
      name: `burst${which}: CPU meanwhile, all threads (${engine})`,
      value: Math.round(result.cpuMs),
      unit: "ms",
    },
    {
      name: `burst${which}: CPU meanwhile, the request loop's thread (${engine})`,
      value: Math.round(result.loopCpuMs),
      unit: "ms",
    },
  ];
  return [
    ...rows(fresh, `${count} custom pushes over HTTP`, ""),
    ...rows(again, `${count} more in the same service`, " again"),
  ];
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--database-url");
  printTable(await benchBurst({ databaseUrl: i >= 0 ? Deno.args[i + 1] : undefined }));
  Deno.exit(0);
}
