/**
 * The transactional outbox of device messages (src/infra/mqtt/outbox.ts): `new_push` and `unbound` are
 * enqueued in the transaction that makes them true, so a broker outage between the commit and
 * the publish delays them but loses nothing. Runs against a Mosquitto of the test's own that it
 * stops and starts (the shared broker stays untouched), on either database.
 */
import { sql } from "kysely";
import { assert, assertEquals, expectStatus } from "./helpers/assert.ts";
import { client, registerUser } from "./helpers/http.ts";
import { startTestServer } from "./helpers/server.ts";
import { createDevice, deviceRow, insertPush } from "./helpers/devices.ts";
import { connectDevice, type DeviceClient, eventually } from "./helpers/mqtt.ts";
import { MOSQUITTO, privateMosquitto } from "./helpers/private_mosquitto.ts";

const hasMosquitto = await Deno.stat(MOSQUITTO).then(() => true, () => false);

/** What a device received on `down/cmd`, counted per `kind` (a duplicate would show here). */
function kindsOf(device: DeviceClient): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { topic, body } of device.received) {
    if (topic.endsWith("/down/cmd")) counts[body.kind] = (counts[body.kind] ?? 0) + 1;
  }
  return counts;
}

Deno.test({
  name: "outbox: new_push and unbound committed while the broker is down go out once it is back",
  ignore: !hasMosquitto,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const broker = await privateMosquitto();
    const server = await startTestServer({ MQTT_URL: broker.url });
    let device: DeviceClient | undefined;
    try {
      const api = client(server.url);
      const user = await registerUser(api);
      const token = user.accessToken;
      const d = await createDevice(server, user.user.id);
      const pushId = await insertPush(server, d, user.user.id);
      const base = `/api/devices/${d.id}`;

      await broker.stop();
      // Both commits succeed without the broker; their messages wait in the outbox.
      expectStatus(await api.post(`${base}/current-push`, { token, body: { pushId } }), 200);
      expectStatus(await api.post(`${base}/unbind`, { token }), 200);
      assertEquals((await deviceRow(server, d.id)).owner_id, null);
      // The publish failed and was put back for a retry (pg-boss backoff), not dropped.
      const db = server.app.services.db;
      await eventually(async () => {
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pgboss.job
          WHERE name = 'device-message' AND state = 'retry' AND retry_count >= 1`.execute(db);
        return Number(rows[0].n) === 2;
      }, "both messages waiting for a retry");

      await broker.start();
      device = await connectDevice(broker.url, d.thingName);
      assertEquals(await device.next("down/cmd", (m) => m.kind === "new_push"), {
        kind: "new_push",
        pushId,
      });
      assertEquals(await device.next("down/cmd", (m) => m.kind === "unbound"), {
        kind: "unbound",
      });
      await eventually(async () => {
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pgboss.job
          WHERE name = 'device-message' AND state = 'completed'`.execute(db);
        return Number(rows[0].n) === 2;
      }, "both outbox jobs completed");
      // Nothing arrives twice.
      await new Promise((r) => setTimeout(r, 1_000));
      assertEquals(kindsOf(device), { new_push: 1, unbound: 1 });
    } finally {
      await device?.close();
      await server.close();
      await broker.dispose();
    }
  },
});

Deno.test({
  name: "outbox: a rolled-back unbind sends nothing",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const server = await startTestServer();
    let device: DeviceClient | undefined;
    try {
      const api = client(server.url);
      const owner = await registerUser(api);
      const stranger = await registerUser(api);
      const d = await createDevice(server, owner.user.id);
      device = await connectDevice(server.app.mqttUrl, d.thingName);
      // Another user's unbind is refused inside the transaction: no message may leak out.
      const refused = await api.post(`/api/devices/${d.id}/unbind`, {
        token: stranger.accessToken,
      });
      assert.equal(refused.status, 403);
      expectStatus(
        await api.post(`/api/devices/${d.id}/unbind`, { token: owner.accessToken }),
        200,
      );
      await device.next("down/cmd", (m) => m.kind === "unbound");
      await new Promise((r) => setTimeout(r, 1_000));
      assertEquals(kindsOf(device), { unbound: 1 });
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'device-message'`
        .execute(server.app.services.db);
      assertEquals(Number(rows[0].n), 1);
    } finally {
      await device?.close();
      await server.close();
    }
  },
});
