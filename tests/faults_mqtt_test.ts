/**
 * Issue 13, faults: the MQTT broker restarted. The service runs against a Mosquitto of the test's
 * own (tests/helpers/private_mosquitto.ts; the shared broker is never touched). While it is down
 * a command answers 503 and records nothing, and `/ready` names the broker; once it is back the
 * gateway has reconnected and resubscribed by itself: a device message is handled again and
 * commands are delivered.
 */
import { assert, expectError, expectStatus } from "./helpers/assert.ts";
import { createDevice, deviceRow } from "./helpers/devices.ts";
import { client, registerUser } from "./helpers/http.ts";
import { connectDevice, eventually } from "./helpers/mqtt.ts";
import { MOSQUITTO, privateMosquitto } from "./helpers/private_mosquitto.ts";
import { startTestServer } from "./helpers/server.ts";

function mosquittoAvailable(): boolean {
  try {
    Deno.statSync(MOSQUITTO);
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name: "faults: MQTT broker restart: cmd 503 records nothing while down; reconnect, resubscribe",
  ignore: !mosquittoAvailable(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const broker = await privateMosquitto();
    const server = await startTestServer({ MQTT_URL: broker.url });
    const api = client(server.url);
    try {
      const user = await registerUser(api, "mqttfault");
      const token = user.accessToken;
      const device = await createDevice(server, user.user.id);
      const commands = () =>
        server.app.services.db.selectFrom("device_commands").select("id")
          .where("device_id", "=", device.id).execute();
      let thing = await connectDevice(broker.url, device.thingName);
      const sent = expectStatus(
        await api.post(`/api/devices/${device.id}/cmd`, {
          token,
          body: { kind: "text", text: "before" },
        }),
        200,
      );
      assert.equal((await thing.next("down/cmd")).id, sent.id);
      await thing.close();

      await broker.stop();
      await eventually(async () => (await api.get("/ready")).status === 503, "/ready turns 503");
      expectError(await api.get("/ready"), 503, /^Not ready: broker unavailable$/);
      const refused = await api.post(`/api/devices/${device.id}/cmd`, {
        token,
        body: { kind: "text", text: "while down" },
      });
      expectError(refused, 503, /MQTT broker/);
      assert.equal((await commands()).length, 1, "a refused command is not recorded");

      await broker.start();
      // The gateway reconnects by itself (no restart of the service).
      await eventually(async () => (await api.get("/ready")).status === 200, "/ready turns 200");
      thing = await connectDevice(broker.url, device.thingName);
      try {
        // Resubscribed: a device message sent after the restart is handled.
        const report = { battery: 42, firmware: "after-restart" };
        await eventually(async () => {
          await thing.send("up/state", report);
          return (await deviceRow(server, device.id)).firmware === "after-restart";
        }, "a device message after the restart is handled");
        const again = expectStatus(
          await api.post(`/api/devices/${device.id}/cmd`, {
            token,
            body: { kind: "text", text: "after" },
          }),
          200,
        );
        assert.equal((await thing.next("down/cmd", (m) => m.id === again.id)).text, "after");
        assert.equal((await commands()).length, 2);
      } finally {
        await thing.close();
      }
    } finally {
      await server.close();
      await broker.dispose();
    }
  },
});
