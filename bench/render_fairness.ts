/**
 * Push render fairness (issue 33 item 4): the service in another process; an attacker confirms
 * 40 custom pushes of 1600x1200 photos at once, then a victim (another user) confirms one. Prints
 * the victim's latency (confirm → its push rendered, QUEUE: `GET .../push/{pushId}` answers 200)
 * beside the attacker's median and slowest, and beside a baseline from the same run: the victim's
 * push with no attacker. `--before DIR` measures the service of another checkout in the same run
 * (e.g. `git archive` of the commit before fair shares, with this worktree's node_modules linked).
 * Run alone: `deno run -A bench/render_fairness.ts [--before DIR]`; DATABASE_URL measures on a
 * scratch database of that PostgreSQL.
 */
import { sql } from "kysely";
import { connect } from "../src/infra/db/connect.ts";
import { createDatabase } from "../tests/helpers/server.ts";
import {
  type BenchRow,
  median,
  printTable,
  registerBenchUser,
  spawnServiceChild,
  waitFor,
} from "./lib.ts";
import { benchPhoto } from "./photo.ts";

const FLOOD = 40;
/** No scenario waits longer than this for its renders. */
const DEADLINE_MS = 240_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function call(method: string, url: string, token: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function post(url: string, token: string, body: unknown) {
  const reply = await call("POST", url, token, body);
  if (reply.status >= 300) throw new Error(`${url}: ${reply.status} ${JSON.stringify(reply.json)}`);
  return reply.json;
}

/** An uploaded photo, ready to confirm: its file id. */
async function uploaded(base: string, token: string, variant: number): Promise<string> {
  const photo = await benchPhoto(variant);
  const ticket = await post(`${base}/custom-push/upload`, token, {
    contentType: "image/jpeg",
    sizeBytes: photo.length,
  });
  const form = new FormData();
  for (const [k, v] of Object.entries(ticket.fields as Record<string, string>)) form.append(k, v);
  form.append("file", new Blob([photo as Uint8Array<ArrayBuffer>], { type: "image/jpeg" }), "p");
  const res = await fetch(ticket.url, { method: "POST", body: form });
  await res.body?.cancel();
  if (res.status !== 204) throw new Error(`upload answered ${res.status}`);
  return ticket.fileId;
}

/** Confirms an upload; resolves with ms from the confirm to the push rendered (QUEUE). */
async function victimPush(base: string, token: string, fileId: string): Promise<number> {
  const started = performance.now();
  const { pushId } = await post(`${base}/custom-push/confirm`, token, { fileId });
  const deadline = Date.now() + DEADLINE_MS;
  while (Date.now() < deadline) {
    const reply = await call("GET", `${base}/push/${pushId}`, token);
    if (reply.status === 200) return performance.now() - started;
    if (reply.status !== 404) throw new Error(`push ${pushId}: ${reply.status}`);
    await sleep(50);
  }
  throw new Error("the victim's push was not rendered in time");
}

/** Two users with a device each, written while the service is stopped (PGlite has one owner). */
async function provision(
  dataDir: string,
  databaseUrl: string | undefined,
  users: string[],
): Promise<string[]> {
  const connection = await connect({ url: databaseUrl, dataDir });
  try {
    const ids = [];
    for (const userId of users) {
      const id = crypto.randomUUID();
      await sql`INSERT INTO devices (id, hw_id, thing_name, owner_id, bound_at)
        VALUES (${id}, ${crypto.randomUUID().replaceAll("-", "")}, ${`bench-${id.slice(-8)}`},
          ${userId}, now())`.execute(connection.db);
      ids.push(id);
    }
    return ids;
  } finally {
    await connection.close();
  }
}

/** One service (this checkout or `root`): the baseline, then the flood. Latencies in ms. */
async function scenario(root: URL | undefined, databaseUrl: string | undefined) {
  const dataDir = await Deno.makeTempDir({ prefix: "dds-bench-fair-" });
  const scratch = databaseUrl ? await createDatabase(databaseUrl) : undefined;
  const env: Record<string, string> = scratch ? { DATABASE_URL: scratch.url } : {};
  let service: ReturnType<typeof spawnServiceChild> | undefined;
  const start = async () => {
    service = spawnServiceChild(env, dataDir, root);
    await waitFor(`${service.url}/ready`);
    return service.url;
  };
  const stop = async () => {
    service?.child.kill("SIGTERM");
    await service?.child.status;
    service = undefined;
  };
  try {
    let url = await start();
    const attacker = await registerBenchUser(url, "attacker");
    const victim = await registerBenchUser(url, "victim");
    await stop();
    const [attackerDevice, victimDevice] = await provision(dataDir, env.DATABASE_URL, [
      attacker.user.id,
      victim.user.id,
    ]);
    url = await start();
    const attackerBase = `${url}/api/devices/${attackerDevice}`;
    const victimBase = `${url}/api/devices/${victimDevice}`;
    const floodFiles = [];
    for (let i = 0; i < FLOOD; i++) {
      floodFiles.push(await uploaded(attackerBase, attacker.accessToken, i));
    }
    const victimFiles = [
      await uploaded(victimBase, victim.accessToken, 1000),
      await uploaded(victimBase, victim.accessToken, 1001),
    ];
    // Baseline: the victim's push with the service otherwise idle.
    const alone = await victimPush(victimBase, victim.accessToken, victimFiles[0]);
    // The flood: 40 confirms at once, then the victim's one.
    const floodStarted = performance.now();
    const pushIds: string[] = await Promise.all(
      floodFiles.map(async (fileId) =>
        (await post(`${attackerBase}/custom-push/confirm`, attacker.accessToken, { fileId }))
          .pushId
      ),
    );
    const victimWait = victimPush(victimBase, victim.accessToken, victimFiles[1]);
    const rendered = new Map<string, number>();
    const deadline = Date.now() + DEADLINE_MS;
    while (rendered.size < pushIds.length && Date.now() < deadline) {
      const list = await call("GET", `${attackerBase}/pushes?limit=50`, attacker.accessToken);
      for (const item of list.json.items as { pushId: string; status: string }[]) {
        if (item.status !== "PREPARE" && !rendered.has(item.pushId)) {
          rendered.set(item.pushId, performance.now() - floodStarted);
        }
      }
      await sleep(250);
    }
    if (rendered.size < pushIds.length) throw new Error("the flood was not rendered in time");
    const attackerLatencies = [...rendered.values()];
    return {
      alone,
      victim: await victimWait,
      attackerMedian: median(attackerLatencies),
      attackerLast: Math.max(...attackerLatencies),
    };
  } finally {
    await stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await scratch?.drop();
  }
}

export async function benchRenderFairness(
  options: { before?: string; databaseUrl?: string } = {},
): Promise<BenchRow[]> {
  const runs: Array<[string, URL | undefined]> = [
    ...(options.before
      ? [["before", new URL(`file://${options.before.replace(/\/?$/, "/")}`)] as [string, URL]]
      : []),
    [options.before ? "after" : "this checkout", undefined],
  ];
  const rows: BenchRow[] = [];
  const s = (ms: number) => Number((ms / 1000).toFixed(2));
  for (const [label, root] of runs) {
    const r = await scenario(root, options.databaseUrl);
    const name = (what: string) => `render fairness (${label}): ${what}`;
    rows.push(
      { name: name("victim's push alone (baseline)"), value: s(r.alone), unit: "s" },
      { name: name(`victim's push after ${FLOOD} attacker pushes`), value: s(r.victim), unit: "s" },
      { name: name("attacker's pushes, median"), value: s(r.attackerMedian), unit: "s" },
      { name: name("attacker's pushes, last"), value: s(r.attackerLast), unit: "s" },
    );
  }
  return rows;
}

if (import.meta.main) {
  const flag = (name: string) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  printTable(
    await benchRenderFairness({
      before: flag("before"),
      databaseUrl: Deno.env.get("DATABASE_URL"),
    }),
  );
  Deno.exit(0);
}
