/**
 * Issue 13, faults: PostgreSQL restarted under load. The service runs on a cluster of the test's
 * own (tests/helpers/pg_cluster.ts; the machine's shared one is never touched). While it is down
 * every request answers 503 in its surface's envelope, quickly; once it is back the same process
 * serves again; every write that was acknowledged with a 2xx is in the database afterwards.
 */
import postgres from "postgres";
import { assert } from "./helpers/assert.ts";
import { client, registerUser } from "./helpers/http.ts";
import { customPush } from "./helpers/custom_push.ts";
import { createDevice, pushRow } from "./helpers/devices.ts";
import { eventually } from "./helpers/mqtt.ts";
import { pgAvailable, privatePgCluster } from "./helpers/pg_cluster.ts";
import { startTestServer } from "./helpers/server.ts";

interface Outcome {
  kind: "read" | "write";
  status: number;
  ms: number;
  startedAt: number;
  endedAt: number;
  body: unknown;
  retryAfter: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const mode of ["fast", "immediate"] as const) {
  Deno.test({
    name: `faults: PostgreSQL ${mode === "fast" ? "restart" : "crash"} under load: 503 fast ` +
      "while down, recovers, no acknowledged write lost",
    ignore: !pgAvailable(),
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => outage(mode),
  });
}

/** Runs the load, stops the cluster (`fast` ends sessions, `immediate` is a crash), starts it. */
async function outage(mode: "fast" | "immediate") {
  const cluster = await privatePgCluster();
  const server = await startTestServer({ DATABASE_URL: cluster.url });
  const api = client(server.url);
  let stopLoad = false;
  try {
    const user = await registerUser(api, "pgfault");
    const token = user.accessToken;
    const outcomes: Outcome[] = [];
    const acked: string[] = [];
    let n = 0;
    // Plain fetch: the load must see whatever the server answers, documented or not.
    const once = async (kind: "read" | "write") => {
      const startedAt = performance.now();
      const res = await fetch(`${server.url}/api/personal-access-tokens`, {
        method: kind === "write" ? "POST" : "GET",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: kind === "write" ? JSON.stringify({ name: `load-${n++}` }) : undefined,
      });
      const text = await res.text();
      const endedAt = performance.now();
      const body = text ? JSON.parse(text) : null;
      if (kind === "write" && res.status === 201) acked.push(body.id);
      outcomes.push({
        kind,
        status: res.status,
        ms: endedAt - startedAt,
        startedAt,
        endedAt,
        body,
        retryAfter: res.headers.get("retry-after"),
      });
    };
    // Four clients, each alternating a write and a read, back to back.
    const load = Array.from({ length: 4 }, async () => {
      while (!stopLoad) {
        await once("write");
        await once("read");
      }
    });

    await sleep(1_000);
    const before = await fetch(`${server.url}/ready`);
    assert.equal(before.status, 200);
    await before.body?.cancel();
    await cluster.stop(mode);
    const downFrom = performance.now();
    // The readiness probe turns 503 and names the database, quickly.
    const probeStarted = performance.now();
    const probe = await fetch(`${server.url}/ready`);
    assert.ok(performance.now() - probeStarted < 2_000);
    assert.equal(probe.status, 503);
    assert.deepEqual(await probe.json(), { error: "Not ready: database unavailable" });
    // The same on `/trpc`, in tRPC's own shape.
    const trpc = await fetch(`${server.url}/trpc/pats.listPats`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(trpc.status, 503);
    assert.equal((await trpc.json()).error.data.code, "SERVICE_UNAVAILABLE");
    assert.equal(trpc.headers.get("retry-after"), "5");
    await sleep(3_000);
    const downUntil = performance.now();
    await cluster.start();
    // Back without a restart of the service: writes succeed again.
    const writesBefore = acked.length;
    await eventually(() => Promise.resolve(acked.length > writesBefore + 8), "writes resume");
    stopLoad = true;
    await Promise.all(load);

    const during = outcomes.filter((o) => o.startedAt >= downFrom && o.endedAt <= downUntil);
    assert.ok(during.length >= 8, `only ${during.length} requests while the database was down`);
    for (const o of during) {
      assert.equal(o.status, 503, `${o.kind} answered ${o.status} while down`);
      assert.ok(o.ms < 2_000, `${o.kind} took ${Math.round(o.ms)} ms while down`);
      assert.deepEqual(o.body, { error: "Service temporarily unavailable, try again shortly" });
      assert.equal(o.retryAfter, "5");
    }
    // Around the stop and start, a request may also fail as 503; nothing is a 500 or a hang.
    for (const o of outcomes) {
      assert.ok([200, 201, 503].includes(o.status), `${o.kind} answered ${o.status}`);
      assert.ok(o.ms < 5_000, `${o.kind} took ${Math.round(o.ms)} ms`);
    }
    const after = outcomes.filter((o) => o.startedAt > downUntil).slice(-8);
    assert.ok(after.every((o) => o.status === 200 || o.status === 201));

    // Every acknowledged write is there.
    const sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ id: string }[]>`
          SELECT id FROM personal_access_tokens WHERE user_id = ${user.user.id}`;
      const stored = new Set(rows.map((r) => r.id));
      const lost = acked.filter((id) => !stored.has(id));
      assert.deepEqual(lost, [], `${lost.length} of ${acked.length} acknowledged writes lost`);
    } finally {
      await sql.end();
    }
    // Jobs resumed too: a push enqueued now (in its request's transaction) is rendered.
    const device = await createDevice(server, user.user.id);
    const pushId = await customPush(api, token, device.id);
    await eventually(async () => (await pushRow(server, pushId)).status === "QUEUE", "render");

    const ready = await fetch(`${server.url}/ready`);
    assert.equal(ready.status, 200);
    await ready.body?.cancel();
    const health = await fetch(`${server.url}/health`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    stopLoad = true;
    await server.close().catch(() => {});
    await cluster.dispose();
  }
}
