/**
 * Issue 13: the ports open before the app, so a probe during start-up sees 503 "not ready" (and
 * `/health` 200), never "connection refused". The start-up is held by a database that accepts
 * connections and never answers; closing them fails the start, which then closes its ports.
 */
import { parseConfig } from "../src/config.ts";
import { startServer } from "../src/server.ts";
import { assert, assertEquals } from "./helpers/assert.ts";
import { freePort } from "./helpers/ports.ts";

Deno.test({
  name:
    "start-up: /health 200, /ready and the API 503 until the app is open; a failed start closes the port",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    (async () => {
      for await (const conn of silent) held.push(conn);
    })().catch(() => {});
    const dataDir = await Deno.makeTempDir({ prefix: "dds-starting-" });
    const port = freePort();
    const started = startServer(parseConfig({
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "silent",
      DATA_DIR: dataDir,
      MQTT_PORT: "0",
      JWT_SECRET: "test-secret-test-secret-test-secret-0123456789",
      DATABASE_URL: `postgres://postgres@127.0.0.1:${(silent.addr as Deno.NetAddr).port}/dds`,
    }));
    const outcome = started.then(() => "started", (error) => error);
    try {
      const base = `http://127.0.0.1:${port}`;
      let health: Response | undefined;
      for (let i = 0; i < 100 && !health; i++) {
        health = await fetch(`${base}/health`).catch(() => undefined);
        if (!health) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(health, "the port never opened while the app was starting");
      assertEquals([health.status, await health.json()], [200, { status: "ok" }]);

      const ready = await fetch(`${base}/ready`);
      assertEquals(ready.status, 503);
      assertEquals(await ready.json(), { error: "Not ready: starting" });
      assertEquals(ready.headers.get("retry-after"), "1");
      assert.ok(ready.headers.get("x-request-id"));

      const api = await fetch(`${base}/auth/me`);
      assertEquals([api.status, await api.json()], [503, { error: "The service is starting" }]);
      const sdk = await fetch(`${base}/api/sdk/v1/me`);
      const body = await sdk.json();
      assertEquals([sdk.status, body.error.code], [503, "unavailable"]);
    } finally {
      for (const conn of held) conn.close();
      silent.close();
    }
    const result = await outcome;
    assert.ok(result instanceof Error, `start-up should fail without a database, got ${result}`);
    const after = await fetch(`http://127.0.0.1:${port}/health`).catch(() => "refused");
    assertEquals(after, "refused");
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  },
});
