/**
 * Issue 27: no message tells a device that a push reached QUEUE (CONTRACT.md "MQTT topics": only
 * current-push sends `new_push`), so `device-sim --refresh <seconds>` wakes up and asks for the
 * next queued push (`up/refresh_push`), as a battery-powered frame does.
 */
import mqtt from "mqtt";
import { assert, assertEquals } from "./helpers/assert.ts";
import { client, registerUser } from "./helpers/http.ts";
import { startTestServer } from "./helpers/server.ts";
import { createDevice, insertPush, mqttPasswordOf, pushRow } from "./helpers/devices.ts";
import { runDeviceSim, simOptionsFromArgs } from "../tools/device_sim.ts";

/** Polls `check` every 100 ms for up to `seconds`. */
async function within<T>(seconds: number, what: string, check: () => Promise<T | null | false>) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test({
  name: "device-sim --refresh shows a push that reached QUEUE after the one it shows",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const server = await startTestServer();
    const outDir = await Deno.makeTempDir({ prefix: "dds-sim-refresh-" });
    const controller = new AbortController();
    let running: Promise<unknown> | undefined;
    const device = { thingName: "" };
    try {
      const alice = await registerUser(client(server.url));
      const d = await createDevice(server, alice.user.id);
      device.thingName = d.thingName;
      const first = await insertPush(server, d, alice.user.id);
      const lines: string[] = [];
      running = runDeviceSim({
        thing: d.thingName,
        password: d.mqttPassword,
        mqttUrl: server.app.mqttUrl,
        format: "raw2",
        outDir,
        heartbeatSeconds: 60,
        refreshSeconds: 1,
        once: false,
        log: (line) => lines.push(line),
      }, controller.signal);
      const confirmed = (id: string) => async () =>
        (await pushRow(server, id)).status === "CONFIRMED";
      await within(20, "the first push on screen", confirmed(first));
      // Nothing queued: the wake-ups keep the picture and download nothing again.
      await within(
        5,
        "a wake-up with nothing queued",
        () => Promise.resolve(lines.some((l) => l.startsWith("nothing new queued"))),
      );
      assertEquals(lines.filter((l) => l.startsWith("displayed push")).length, 1);

      // A push reaches QUEUE (as the analyze agent's do): no message; the next wake-up shows it.
      const next = await insertPush(server, d, alice.user.id);
      await within(10, "the queued push on screen", confirmed(next));
      assertEquals((await pushRow(server, first)).status, "EXPIRED");
      assert.ok(lines.includes(`displayed push ${next} (48000 bytes) → ${outDir}/${next}.raw`));
    } finally {
      controller.abort();
      await running?.catch(() => {});
      // A shared broker keeps the retained `offline` status: clear it.
      if (device.thingName) {
        const cleaner = await mqtt.connectAsync(server.app.mqttUrl, {
          clientId: device.thingName,
          username: device.thingName,
          password: mqttPasswordOf(device.thingName),
          protocolVersion: 4,
          reconnectPeriod: 0,
        });
        await cleaner.publishAsync(`devices/${device.thingName}/up/status`, "", {
          qos: 1,
          retain: true,
        });
        await cleaner.endAsync();
      }
      await server.close();
      await Deno.remove(outDir, { recursive: true });
    }
  },
});

Deno.test("device-sim: --refresh takes positive seconds; without it the device never asks", async () => {
  const config = {
    dataDir: "/tmp/x",
    mqtt: { url: "mqtt://127.0.0.1:1", port: 0, deviceKey: undefined },
  };
  const refresh = async (...args: string[]) =>
    (await simOptionsFromArgs(["--thing", "dds-x", ...args], config))!.refreshSeconds;
  assertEquals(await refresh("--refresh", "30"), 30);
  assertEquals(await refresh(), undefined);
  assertEquals(await refresh("--refresh", "0"), undefined);
  assertEquals(await refresh("--refresh", "soon"), undefined);
});
