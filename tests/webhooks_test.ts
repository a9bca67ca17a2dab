/**
 * Event webhooks (issue 24, CONTRACT.md "Integrations"): subscriptions, signed deliveries to a
 * local receiver, a retry after a 500, another user's webhook, the private-target refusal, the
 * device events, and delivery once per subscription across two API and two worker servers on
 * one PostgreSQL.
 */
import { sql } from "kysely";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, client, registerUser } from "./helpers/http.ts";
import {
  createDatabase,
  externalDatabaseUrl,
  startTestServer,
  type TestServer,
} from "./helpers/server.ts";
import { eventually } from "./helpers/mqtt.ts";
import { createDevice, insertPush } from "./helpers/devices.ts";
import { verifySignature } from "../src/domains/webhooks/sign.ts";
import { account, hardcodePresentation } from "./helpers/targetless.ts";

interface Received {
  path: string;
  headers: Headers;
  body: string;
}

/** A local receiver: `/ok` answers 204, `/flaky` 500 to its first request and 204 after. */
function startReceiver() {
  const received: Received[] = [];
  let flaky = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    received.push({ path, headers: req.headers, body: await req.text() });
    if (path === "/flaky" && flaky++ === 0) return new Response("boom", { status: 500 });
    return new Response(null, { status: 204 });
  });
  const url = (path: string) => `http://127.0.0.1:${server.addr.port}${path}`;
  return { received, url, close: () => server.shutdown() };
}

async function subscribe(api: Client, token: string, url: string, events: string[]) {
  return expectStatus(await api.post("/api/webhooks", { token, body: { url, events } }), 201);
}

/** Makes a QUEUE push of a new device of the user PUBLISHED (GET .../push promotes it). */
async function publishPush(server: TestServer, api: Client, user: { id: string; token: string }) {
  const device = await createDevice(server, user.id);
  const pushId = await insertPush(server, device, user.id);
  expectStatus(await api.get(`/api/devices/${device.id}/push`, { token: user.token }), 200);
  return { deviceId: device.id, pushId };
}

Deno.test({
  name: "webhooks: signed delivery, retry after a 500, ownership, device events",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const receiver = startReceiver();
    const server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: "1" });
    const api = client(server.url);
    try {
      const reg = await registerUser(api);
      const user = { id: reg.user.id, token: reg.accessToken };

      await t.step("a push.published delivery is signed and recorded", async () => {
        const hook = await subscribe(api, user.token, receiver.url("/ok"), ["push.published"]);
        assert.ok(hook.secret.length >= 32);
        assertEquals(hook.events, ["push.published"]);
        const listed = expectStatus(await api.get("/api/webhooks", { token: user.token }), 200);
        assertEquals(listed.length, 1);
        assertEquals("secret" in listed[0], false);
        assertEquals(listed[0].state, "active");
        assertEquals(
          [listed[0].consecutiveFailures, listed[0].disabledAt, listed[0].disabledReason],
          [0, null, null],
        );
        // The start banner warns that private targets are allowed (issue 34 item 9).
        assert.ok(server.banner().some((line) => /WEBHOOK_ALLOW_PRIVATE is on/.test(line)));

        const { deviceId, pushId } = await publishPush(server, api, user);
        const got = await eventually(
          () => Promise.resolve(receiver.received.find((r) => r.path === "/ok")),
          "the delivery",
        );
        const signature = got.headers.get("webhook-signature")!;
        assert.ok(verifySignature(hook.secret, signature, got.body));
        assertEquals(verifySignature(hook.secret, signature, got.body + " "), false);
        assertEquals(verifySignature("whsec_other", signature, got.body), false);
        const event = JSON.parse(got.body);
        assertEquals(got.headers.get("webhook-id"), event.id);
        assertEquals(got.headers.get("content-type"), "application/json");
        // Deliveries name themselves, not the link previews (issue 34 item 9).
        assert.match(
          got.headers.get("user-agent")!,
          /^DeviceDisplayService-Webhooks\/1\.0 \(\+http:\/\/[^\s)]+\)$/,
        );
        assertEquals(event.type, "push.published");
        assertEquals(event.data, { pushId, deviceId, status: "PUBLISHED" });
        assert.ok(!Number.isNaN(Date.parse(event.createdAt)));

        const page = await eventually(async () => {
          const reply = await api.get(`/api/webhooks/${hook.id}/deliveries`, { token: user.token });
          const body = expectStatus(reply, 200);
          return body.items[0]?.status === "delivered" ? body : null;
        }, "the delivery recorded");
        assertEquals(page.hasMore, false);
        assertEquals(page.items[0].eventId, event.id);
        assertEquals(page.items[0].attempts.map((a: { statusCode: number }) => a.statusCode), [
          204,
        ]);
        expectStatus(await api.delete(`/api/webhooks/${hook.id}`, { token: user.token }), 204);
      });

      await t.step("push.confirmed and push.failed, and deliveries page", async () => {
        const hook = await subscribe(api, user.token, receiver.url("/pushes"), [
          "push.confirmed",
          "push.failed",
        ]);
        const device = await createDevice(server, user.id);
        const pushId = await insertPush(server, device, user.id);
        expectStatus(await api.get(`/api/devices/${device.id}/push`, { token: user.token }), 200);
        const { pushes, pushRenderJob } = server.app.services;
        assert.ok(await pushes.confirmDisplayed(device.thingName, pushId));
        // Confirmed once: a second confirmation moves nothing and emits nothing.
        assertEquals(await pushes.confirmDisplayed(device.thingName, pushId), false);
        // A push whose template does not exist fails for good on its first render.
        const failing = await insertPush(server, device, user.id, { status: "PREPARE" });
        await pushRenderJob.handle({ pushId: failing }, { number: 1, final: true });
        const events = () =>
          receiver.received.filter((r) => r.path === "/pushes").map((r) => JSON.parse(r.body));
        await eventually(() => Promise.resolve(events().length >= 2), "the push events");
        const byType = Object.fromEntries(events().map((e) => [e.type, e.data]));
        assertEquals(byType["push.confirmed"], {
          pushId,
          deviceId: device.id,
          status: "CONFIRMED",
        });
        assertEquals(byType["push.failed"].pushId, failing);
        assertEquals(byType["push.failed"].deviceId, device.id);
        assertEquals(typeof byType["push.failed"].error, "string");
        const path = `/api/webhooks/${hook.id}/deliveries`;
        const first = await eventually(async () => {
          const body = expectStatus(await api.get(`${path}?limit=1`, { token: user.token }), 200);
          return body.items[0]?.status === "delivered" ? body : null;
        }, "the deliveries");
        assertEquals([first.items.length, first.hasMore], [1, true]);
        const second = expectStatus(
          await api.get(`${path}?limit=1&cursor=${first.nextCursor}`, { token: user.token }),
          200,
        );
        assertEquals([second.items.length, second.hasMore], [1, false]);
        assert.ok(second.items[0].id !== first.items[0].id);
        assertEquals(events().length, 2);
        expectStatus(await api.delete(`/api/webhooks/${hook.id}`, { token: user.token }), 204);
      });

      await t.step("a 500 is retried, and the retry succeeds", async () => {
        const hook = await subscribe(api, user.token, receiver.url("/flaky"), ["push.published"]);
        await publishPush(server, api, user);
        const delivery = await eventually(async () => {
          const reply = await api.get(`/api/webhooks/${hook.id}/deliveries`, { token: user.token });
          const item = expectStatus(reply, 200).items[0];
          return item?.status === "delivered" ? item : null;
        }, "the retried delivery");
        assertEquals(delivery.attempts.map((a: { statusCode: number }) => a.statusCode), [
          500,
          204,
        ]);
        assertEquals(delivery.attempts[0].error, "Answered 500");
        const tries = receiver.received.filter((r) => r.path === "/flaky");
        assertEquals(tries.length, 2);
        // The same event, signed again at its own time.
        assertEquals(tries[0].body, tries[1].body);
        assertEquals(tries[0].headers.get("webhook-id"), tries[1].headers.get("webhook-id"));
        for (const r of tries) {
          assert.ok(verifySignature(hook.secret, r.headers.get("webhook-signature")!, r.body));
        }
        expectStatus(await api.delete(`/api/webhooks/${hook.id}`, { token: user.token }), 204);
      });

      await t.step("another user's webhook is 404; bad input is 400", async () => {
        const hook = await subscribe(api, user.token, receiver.url("/ok"), ["device.online"]);
        const other = await registerUser(api, "other");
        const token = other.accessToken;
        expectError(await api.delete(`/api/webhooks/${hook.id}`, { token }), 404);
        expectError(await api.get(`/api/webhooks/${hook.id}/deliveries`, { token }), 404);
        assertEquals(expectStatus(await api.get("/api/webhooks", { token }), 200), []);
        expectError(await api.delete(`/api/webhooks/${crypto.randomUUID()}`, { token }), 404);
        expectError(await api.delete(`/api/webhooks/not-a-uuid`, { token }), 400);
        expectError(await api.get("/api/webhooks"), 401);
        for (
          const body of [
            { url: receiver.url("/ok"), events: ["push.exploded"] },
            { url: receiver.url("/ok"), events: [] },
            { url: "ftp://example.com/x", events: ["push.published"] },
            { url: "http://user:pw@example.com/", events: ["push.published"] },
            { url: "not a url", events: ["push.published"] },
            { events: ["push.published"] },
          ]
        ) {
          expectError(await api.post("/api/webhooks", { token, body }), 400);
        }
        expectError(
          await api.get(`/api/webhooks/${hook.id}/deliveries?cursor=nope`, { token: user.token }),
          400,
        );
        expectStatus(await api.delete(`/api/webhooks/${hook.id}`, { token: user.token }), 204);
        expectError(await api.delete(`/api/webhooks/${hook.id}`, { token: user.token }), 404);
      });

      await t.step("device reports emit device.online and device.battery_low", async () => {
        const settings = await api.put("/api/webhooks/settings", {
          token: user.token,
          body: { batteryLowThreshold: 30 },
        });
        assertEquals(expectStatus(settings, 200), { batteryLowThreshold: 30 });
        expectError(
          await api.put("/api/webhooks/settings", {
            token: user.token,
            body: { batteryLowThreshold: 100 },
          }),
          400,
        );
        await subscribe(api, user.token, receiver.url("/devices"), [
          "device.online",
          "device.offline",
          "device.battery_low",
        ]);
        const device = await createDevice(server, user.id);
        const { devices } = server.app.services;
        await devices.heartbeat(device.thingName, { battery: 25 });
        // A second report changes nothing announced: no second event.
        await devices.heartbeat(device.thingName, { battery: 24 });
        const types = () =>
          receiver.received.filter((r) => r.path === "/devices").map((r) => JSON.parse(r.body))
            .filter((e) => e.data.deviceId === device.id).map((e) => e.type).sort();
        await eventually(() => Promise.resolve(types().length >= 2), "the device events");
        assertEquals(types(), ["device.battery_low", "device.online"]);
        const low = receiver.received.map((r) => JSON.parse(r.body))
          .find((e) => e.type === "device.battery_low");
        assertEquals(low.data, { deviceId: device.id, battery: 25, threshold: 30 });

        // Silence: 4 minutes without a report (the row aged by hand), then the minute's sweep.
        await server.app.services.db.updateTable("devices")
          .set({ last_seen_at: new Date(Date.now() - 4 * 60_000) })
          .where("id", "=", device.id).execute();
        await server.app.services.webhookSweep.run();
        await server.app.services.webhookSweep.run();
        await eventually(() => Promise.resolve(types().length >= 3), "device.offline");
        assertEquals(types(), ["device.battery_low", "device.offline", "device.online"]);
      });

      await t.step(
        "the sweep deletes events older than a month, with their deliveries",
        async () => {
          const db = server.app.services.db;
          const acct = await account(api, "old");
          const hook = await subscribe(api, acct.accessToken, receiver.url("/old"), [
            "push.published",
          ]);
          const event = async (ageDays: number) => {
            const id = crypto.randomUUID();
            await db.insertInto("webhook_events").values({
              id,
              user_id: acct.userId,
              type: "push.published",
              data: sql<never>`'{}'::jsonb`,
              created_at: new Date(Date.now() - ageDays * 86_400_000),
            }).execute();
            await db.insertInto("webhook_deliveries").values({
              id: crypto.randomUUID(),
              webhook_id: hook.id,
              event_id: id,
              status: "delivered",
            }).execute();
            return id;
          };
          const old = await event(31);
          const recent = await event(29);
          await server.app.services.webhookSweep.run();
          const left = await db.selectFrom("webhook_events").select("id")
            .where("id", "in", [old, recent]).execute();
          assertEquals(left.map((r) => r.id), [recent]);
          const deliveries = await db.selectFrom("webhook_deliveries").select("event_id")
            .where("webhook_id", "=", hook.id).execute();
          assertEquals(deliveries.map((d) => d.event_id), [recent]);
        },
      );

      await t.step("a targetless content emits content.ready and presentation.ready", async () => {
        const acct = await account(api, "wh");
        await subscribe(api, acct.accessToken, receiver.url("/contents"), [
          "content.ready",
          "content.failed",
          "presentation.ready",
        ]);
        const { content, presentation } = await hardcodePresentation(acct, acct.sdk);
        const events = () =>
          receiver.received.filter((r) => r.path === "/contents").map((r) => JSON.parse(r.body));
        await eventually(() => Promise.resolve(events().length >= 2), "the content events");
        const byType = Object.fromEntries(events().map((e) => [e.type, e.data]));
        assertEquals(byType["content.ready"], {
          contentId: content.id,
          presentationId: presentation.id,
        });
        assertEquals(byType["presentation.ready"], { presentationId: presentation.id });
        assertEquals(events().length, 2);
      });
    } finally {
      await server.close();
      await receiver.close();
    }
  },
});

Deno.test({
  name: "webhooks: private and loopback targets are refused without WEBHOOK_ALLOW_PRIVATE",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const server = await startTestServer();
    const api = client(server.url);
    try {
      assertEquals(server.banner().some((line) => /WEBHOOK_ALLOW_PRIVATE/.test(line)), false);
      const { accessToken: token } = await registerUser(api);
      // A private or loopback target names the setting that allows it (issue 34 item 9); one
      // that stays refused whatever it says (link-local, the name localhost) does not.
      for (
        const [url, hint] of [
          ["http://127.0.0.1:9/hook", true],
          ["http://10.1.2.3/hook", true],
          ["http://192.168.0.10/hook", true],
          ["http://[::1]/hook", true],
          ["http://localhost/hook", false],
          ["http://169.254.169.254/latest", false],
        ] as const
      ) {
        const reply = await api.post("/api/webhooks", {
          token,
          body: { url, events: ["push.published"] },
        });
        expectError(reply, 400, /url is refused/);
        assertEquals(/WEBHOOK_ALLOW_PRIVATE=1/.test(reply.body.error), hint, url);
      }
      assertEquals(expectStatus(await api.get("/api/webhooks", { token }), 200), []);
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  name: "webhooks: once per subscription across two API and two worker servers on one database",
  ignore: !externalDatabaseUrl,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const receiver = startReceiver();
    const database = await createDatabase(externalDatabaseUrl!);
    const dataDir = await Deno.makeTempDir({ prefix: "dds-webhooks-" });
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      DATA_DIR_SHARED: "1",
      WEBHOOK_ALLOW_PRIVATE: "1",
    };
    const servers: TestServer[] = [];
    try {
      // Started together, as a deployment would.
      servers.push(
        ...await Promise.all([
          startTestServer({ ...env, ROLE: "api" }),
          startTestServer({ ...env, ROLE: "api" }),
          startTestServer({ ...env, ROLE: "worker" }),
          startTestServer({ ...env, ROLE: "worker" }),
        ]),
      );
      const [api1, api2] = servers;
      const apis = [client(api1.url), client(api2.url)];
      const reg = await registerUser(apis[0]);
      const user = { id: reg.user.id, token: reg.accessToken };
      await subscribe(apis[0], user.token, receiver.url("/a"), ["push.published"]);
      await subscribe(apis[1], user.token, receiver.url("/b"), [
        "push.published",
        "push.confirmed",
      ]);
      const pushes = [];
      for (let i = 0; i < 6; i++) {
        pushes.push(await publishPush(servers[i % 2], apis[i % 2], user));
      }
      const expected = pushes.length * 2;
      await eventually(() => Promise.resolve(receiver.received.length >= expected), "deliveries");
      // Every delivery row settled: nothing is still pending that could arrive twice.
      await eventually(async () => {
        const rows = await api1.app.services.db.selectFrom("webhook_deliveries")
          .select("status").execute();
        return rows.length === expected && rows.every((r) => r.status === "delivered");
      }, "every delivery settled");
      const seen = receiver.received.map((r) => `${r.path} ${r.headers.get("webhook-id")}`);
      assertEquals(new Set(seen).size, seen.length, "a delivery arrived twice");
      assertEquals(seen.length, expected);
      const published = receiver.received.map((r) => JSON.parse(r.body).data.pushId);
      for (const { pushId } of pushes) {
        assertEquals(published.filter((id) => id === pushId).length, 2);
      }

      // API 1 remembers that the user watches no device; a webhook made through API 2 reaches
      // it through the change feed: its next report of the device is announced.
      const device = await createDevice(api1, user.id);
      await api1.app.services.devices.heartbeat(device.thingName, {});
      await subscribe(apis[1], user.token, receiver.url("/devices"), ["device.online"]);
      const online = () => receiver.received.filter((r) => r.path === "/devices");
      await eventually(async () => {
        await api1.app.services.devices.heartbeat(device.thingName, {});
        return online().length > 0;
      }, "device.online through API 1");
      // Once: later reports change nothing announced.
      await api1.app.services.devices.heartbeat(device.thingName, {});
      await eventually(async () => {
        const rows = await api1.app.services.db.selectFrom("webhook_deliveries")
          .select("status").where("status", "!=", "delivered").execute();
        return rows.length === 0;
      }, "the device delivery settled");
      assertEquals(online().length, 1);
      assertEquals(JSON.parse(online()[0].body).data, { deviceId: device.id, online: true });
    } finally {
      for (const server of servers) await server.close().catch(() => {});
      await receiver.close();
      await database.drop().catch(() => {});
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
