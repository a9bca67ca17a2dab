/**
 * Scale-out (issue 13): 2 API and 2 worker processes (`deno run src/main.ts --role ...`) on one
 * PostgreSQL and the machine's Mosquitto, the device flows run through both API processes. Each
 * device message is handled once (MQTT shared subscription), each job runs once, the factory
 * download limit holds across the processes. Needs DATABASE_URL and MQTT_URL.
 */
import postgres from "postgres";
import { encode as encodePng } from "fast-png";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, client, registerUser } from "./helpers/http.ts";
import {
  createDatabase,
  externalDatabaseUrl,
  externalMqttUrl,
  startTestServer,
} from "./helpers/server.ts";
import { freePort } from "./helpers/ports.ts";
import { connectDevice, type DeviceClient, eventually } from "./helpers/mqtt.ts";
import {
  as,
  bindRequestOf,
  createBatch,
  factoryEnv,
  provisionedDevice,
} from "./helpers/factory.ts";
import { upload } from "./helpers/targetless.ts";
import { createDevice } from "./helpers/devices.ts";
import { MOSQUITTO, privateMosquitto } from "./helpers/private_mosquitto.ts";

const hasMosquitto = await Deno.stat(MOSQUITTO).then(() => true, () => false);

const ROOT = new URL("../", import.meta.url);

interface Process {
  role: "api" | "worker";
  url: string;
  child: Deno.ChildProcess;
  /** The tail of its stderr, shown when a test fails. */
  stderr: () => string;
}

/** Starts `deno run src/main.ts --role <role>` on `port`. */
function spawn(role: Process["role"], env: Record<string, string>, port = freePort()): Process {
  const child = new Deno.Command(Deno.execPath(), {
    // Manual: node_modules is installed (this test runs from it), and Deno would otherwise copy
    // the linked vendor/postgres again at each start, under the other processes starting now.
    args: ["run", "-A", "--no-check", "--node-modules-dir=manual", "src/main.ts", "--role", role],
    cwd: ROOT,
    env: { ...env, PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let tail = "";
  (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) tail = (tail + decoder.decode(chunk)).slice(-4000);
  })().catch(() => {});
  return { role, url: `http://127.0.0.1:${port}`, child, stderr: () => tail };
}

async function healthy(p: Process) {
  const deadline = Date.now() + 180_000;
  let exited = false;
  p.child.status.then(() => exited = true);
  while (Date.now() < deadline && !exited) {
    try {
      const res = await fetch(`${p.url}/ready`);
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${p.role} at ${p.url} did not start:\n${p.stderr()}`);
}

async function stop(p: Process) {
  try {
    p.child.kill("SIGTERM");
  } catch { /* already gone */ }
  const timer = setTimeout(() => {
    try {
      p.child.kill("SIGKILL");
    } catch { /* gone */ }
  }, 25_000);
  await p.child.status;
  clearTimeout(timer);
}

/** Sums a Prometheus counter (or histogram `_count`) over the samples whose labels match. */
async function metric(p: Process, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${p.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const matches = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (matches) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

async function sumOf(ps: Process[], name: string, labels: Record<string, string>) {
  return (await Promise.all(ps.map((p) => metric(p, name, labels)))).reduce((a, b) => a + b, 0);
}

function samplePng(): Uint8Array {
  const data = new Uint8Array(40 * 30);
  for (let i = 0; i < data.length; i++) data[i] = (i * 13) % 256;
  return encodePng({ width: 40, height: 30, data, channels: 1, depth: 8 });
}

/** Messages a device received on a topic suffix, optionally of one `kind`. */
function received(device: DeviceClient, suffix: string, kind?: string) {
  return device.received.filter((m) =>
    m.topic.endsWith(suffix) && (kind === undefined || m.body?.kind === kind)
  );
}

Deno.test({
  name: "scale-out: 2 API + 2 worker processes handle each message and job once, limits hold",
  ignore: !externalDatabaseUrl || !externalMqttUrl,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const database = await createDatabase(externalDatabaseUrl!);
    const dataDir = await Deno.makeTempDir({ prefix: "dds-scale-" });
    const apiPortHint = freePort();
    const env: Record<string, string> = {
      ...Deno.env.toObject(),
      ...factoryEnv({ FACTORY_DOWNLOADS_PER_MINUTE: "6" }),
      HOST: "127.0.0.1",
      LOG_LEVEL: "silent",
      // One DATA_DIR for all four, declared shared: the embedded object store and the generated
      // secrets are shared (docs/deploy.md); S3 would replace the first.
      DATA_DIR: dataDir,
      DATA_DIR_SHARED: "1",
      DATABASE_URL: database.url,
      MQTT_URL: externalMqttUrl!,
      // Unique on the shared Mosquitto: other test runs subscribe at the same time.
      MQTT_SHARE_GROUP: `scale-${crypto.randomUUID().slice(0, 8)}`,
      JWT_SECRET: "scale-secret-scale-secret-scale-secret-0123456789",
      // The first API process listens there (the embedded store's signed upload URLs).
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPortHint}`,
    };
    const processes: Process[] = [];
    const devices: DeviceClient[] = [];
    const sql = postgres(database.url, { max: 2, onnotice: () => {} });
    try {
      const port = (p: Process) => new URL(p.url).port;
      // All four at once, as a deployment would: migrations, pg-boss and secrets.json race.
      processes.push(
        spawn("api", env, apiPortHint),
        spawn("api", env),
        spawn("worker", env),
        spawn("worker", env),
      );
      await Promise.all(processes.map(healthy));
      const [api1, api2, w1, w2] = processes;
      assert.ok(port(api1) !== port(api2));
      const apis: Client[] = [client(api1.url), client(api2.url)];
      const workers = [w1, w2];

      // A worker serves probes and metrics, not the API.
      expectError(await client(w1.url).get("/api/devices"), 404);

      // Four devices provisioned through the factory console of API 1, bound through API 2.
      const user = await registerUser(apis[1]);
      const token = user.accessToken;
      // A synchronous render (template preview) runs in the API process's own small pool.
      const preview = await fetch(`${api2.url}/api/templates/note/preview`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "Scale", body: "Rendered by an API process" }),
      });
      assertEquals([preview.status, preview.headers.get("content-type")], [200, "image/png"]);
      await preview.body?.cancel();
      const provisioned = [];
      for (let i = 0; i < 4; i++) provisioned.push(await provisionedDevice(apis[0]));
      for (const [i, p] of provisioned.entries()) {
        const reply = await apis[(i + 1) % 2].post("/api/devices/bind/nfc", {
          token,
          body: bindRequestOf(p.file.nfcPayload),
        });
        expectStatus(reply, 200);
        devices.push(await connectDevice(externalMqttUrl!, p.file.thingName, p.file.mqttPassword));
      }

      // A custom push per device, ticket and confirm through alternating processes; rendered by
      // the workers.
      const pushIds: string[] = [];
      for (const [i, p] of provisioned.entries()) {
        const base = `/api/devices/${p.device.id}`;
        const ticket = expectStatus(
          await apis[i % 2].post(`${base}/custom-push/upload`, {
            token,
            body: { contentType: "image/png" },
          }),
          200,
        );
        assertEquals(await upload(ticket, samplePng()), 204);
        const confirmed = expectStatus(
          await apis[(i + 1) % 2].post(`${base}/custom-push/confirm`, {
            token,
            body: { fileId: ticket.fileId },
          }),
          200,
        );
        pushIds.push(confirmed.pushId);
      }
      await eventually(async () => {
        const rows = await sql`select status from pushes where id = any(${pushIds})`;
        return rows.length === 4 && rows.every((r) => r.status === "QUEUE");
      }, "four pushes rendered");

      // Each device asks for its push over MQTT: exactly one answer, however many API processes.
      for (const [i, device] of devices.entries()) {
        await device.send("up/get_push", { format: "png" });
        const answer = await device.next("down/push");
        assertEquals(answer.pushId, pushIds[i]);
        await device.send("up/confirm", { pushId: pushIds[i] });
      }
      await eventually(async () => {
        const rows = await sql`select status from pushes where id = any(${pushIds})`;
        return rows.every((r) => r.status === "CONFIRMED");
      }, "four pushes confirmed");

      // Commands (published by the API process at once) and current-push (the outbox, published
      // by a worker), through both API processes.
      for (const [i, p] of provisioned.entries()) {
        const base = `/api/devices/${p.device.id}`;
        expectStatus(
          await apis[i % 2].post(`${base}/cmd`, { token, body: { kind: "text", text: `hi ${i}` } }),
          200,
        );
        expectStatus(
          await apis[(i + 1) % 2].post(`${base}/current-push`, {
            token,
            body: { pushId: pushIds[i] },
          }),
          200,
        );
        await devices[i].next("down/cmd", (m) => m.kind === "text");
        await devices[i].next("down/cmd", (m) => m.kind === "new_push");
      }
      // An unbind through API 2: `unbound` once.
      expectStatus(
        await apis[1].post(`/api/devices/${provisioned[0].device.id}/unbind`, { token }),
        200,
      );
      await devices[0].next("down/cmd", (m) => m.kind === "unbound");

      // The factory download limit (6 a minute per principal) across both API processes.
      const second = new Date().getUTCSeconds();
      if (second > 45) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
      const batch = await createBatch(apis[0]);
      const reg = expectStatus(
        await as(apis[0], "skuSup").post("/devices", { body: { batchId: batch.id } }),
        201,
      );
      const credential = expectStatus(
        await as(apis[0], "skuSup").post(`/devices/${reg.id}/nfc-files`),
        201,
      );
      const downloads = await Promise.all(
        Array.from(
          { length: 12 },
          (_, i) => as(apis[i % 2], "skuSup").get(`/nfc-files/${credential.id}/download`),
        ),
      );
      assertEquals(downloads.map((r) => r.status).sort(), [
        ...Array(6).fill(200),
        ...Array(6).fill(429),
      ]);

      // Let any duplicate arrive, then count.
      await new Promise((r) => setTimeout(r, 1_500));
      for (const [i, device] of devices.entries()) {
        assertEquals(received(device, "/down/push").length, 1, `down/push of device ${i}`);
        assertEquals(received(device, "/down/cmd", "text").length, 1, `text of device ${i}`);
        assertEquals(received(device, "/down/cmd", "new_push").length, 1, `new_push ${i}`);
        assertEquals(received(device, "/down/cmd", "unbound").length, i === 0 ? 1 : 0);
      }
      // Device messages reached the API processes once each, the workers never.
      const apiProcs = [api1, api2];
      const inbound = { direction: "in", channel: "up/get_push" };
      assertEquals(await sumOf(apiProcs, "mqtt_messages_total", inbound), 4);
      assertEquals(await sumOf(workers, "mqtt_messages_total", inbound), 0);
      assertEquals(
        await sumOf(apiProcs, "mqtt_messages_total", { direction: "in", channel: "up/confirm" }),
        4,
      );
      // Every job ran once, on a worker: 4 renders, 4 new_push + 1 unbound from the outbox.
      const runs = (queue: string, ps: Process[]) =>
        sumOf(ps, "job_duration_seconds_count", { queue, outcome: "completed" });
      assertEquals(await runs("render", workers), 4);
      assertEquals(await runs("device-message", workers), 5);
      assertEquals(await runs("render", apiProcs), 0);
      const jobs = await sql`
        select name, state, retry_count from pgboss.job
        where name in ('render', 'device-message')`;
      assertEquals(jobs.length, 9);
      assert.ok(jobs.every((j) => j.state === "completed" && j.retry_count === 0));
      const commands = await sql`select count(*)::int as n from device_commands`;
      assertEquals(commands[0].n, 4);
    } catch (error) {
      for (const p of processes) console.error(`--- ${p.role} ${p.url}\n${p.stderr()}`);
      throw error;
    } finally {
      await Promise.all(devices.map((d) => d.close()));
      await Promise.all(processes.map(stop));
      await sql.end();
      await database.drop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "scale-out: the factory download limit holds for concurrent requests on two servers",
  ignore: !externalDatabaseUrl,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const env = factoryEnv({ FACTORY_DOWNLOADS_PER_MINUTE: "5" });
    const first = await startTestServer(env);
    const second = await startTestServer({ ...env, DATABASE_URL: first.env.DATABASE_URL });
    try {
      const apis = [client(first.url), client(second.url)];
      const batch = await createBatch(apis[0]);
      const reg = expectStatus(
        await as(apis[0], "skuSup").post("/devices", { body: { batchId: batch.id } }),
        201,
      );
      const credential = expectStatus(
        await as(apis[1], "skuSup").post(`/devices/${reg.id}/nfc-files`),
        201,
      );
      // Not across a window boundary (the limit is per minute).
      const at = new Date().getUTCSeconds();
      if (at > 50) await new Promise((r) => setTimeout(r, (61 - at) * 1000));
      const replies = await Promise.all(
        Array.from(
          { length: 16 },
          (_, i) => as(apis[i % 2], "skuSup").get(`/nfc-files/${credential.id}/download`),
        ),
      );
      assertEquals(replies.filter((r) => r.status === 200).length, 5);
      for (const r of replies.filter((r) => r.status !== 200)) {
        expectError(r, 429);
        const wait = Number(r.headers.get("retry-after"));
        assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
      }
      // The ZIP counts against the same window, on either server; another principal does not.
      expectError(
        await as(apis[1], "skuSup").post("/nfc-files:download-zip", {
          body: { batchId: batch.id },
        }),
        429,
      );
      expectStatus(await as(apis[1], "sup").get(`/nfc-files/${credential.id}/download`), 200);
    } finally {
      await second.close();
      await first.close();
    }
  },
});

Deno.test({
  name: "scale-out: two deployments on one broker (two share groups) answer only their own devices",
  ignore: !hasMosquitto,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    // A broker of the test's own: no other test server on it may answer.
    const broker = await privateMosquitto();
    const a = await startTestServer({ MQTT_URL: broker.url, MQTT_SHARE_GROUP: "deploy-a" });
    const b = await startTestServer({ MQTT_URL: broker.url, MQTT_SHARE_GROUP: "deploy-b" });
    const sims: DeviceClient[] = [];
    try {
      const user = await registerUser(client(a.url));
      const owned = await createDevice(a, user.user.id);
      const unbound = await createDevice(a);
      for (const d of [owned, unbound]) sims.push(await connectDevice(broker.url, d.thingName));
      for (const sim of sims) await sim.send("up/get_push", {});
      // B does not know these things and stays silent; A answers each once.
      for (const sim of sims) assertEquals(await sim.next("down/push"), { error: "no_push" });
      await new Promise((r) => setTimeout(r, 1_000));
      for (const sim of sims) assertEquals(received(sim, "/down/push").length, 1);
    } finally {
      await Promise.all(sims.map((s) => s.close()));
      await b.close();
      await a.close();
      await broker.dispose();
    }
  },
});
