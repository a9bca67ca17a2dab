/**
 * Webhook deliveries are fair per user and per target, and a failing target is slowed, then
 * disabled, and re-enabled by its owner (issue 33 item 3, CONTRACT.md "Display ownership and fair
 * shares"). Proven by order and concurrency, not by timing: another user's delivery arrives while
 * the slow targets still hold their requests (before any attempt reached its deadline), and a
 * user never has more than its share of requests open at once.
 */
import { sql } from "kysely";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, client, registerUser } from "./helpers/http.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";
import { eventually } from "./helpers/mqtt.ts";
import { createDevice, insertPush } from "./helpers/devices.ts";
import { TARGET_POLICY } from "../src/domains/webhooks/service.ts";

/**
 * `/hold/…` keeps each request open until `release()` (or until the sender gives up: counted in
 * `aborted`); `/fast` answers 204 at once, noting how many held requests were open then;
 * `/fail` answers 500 while `failing` is set.
 */
function startReceiver() {
  const state = {
    held: 0,
    maxHeld: 0,
    aborted: 0,
    heldPaths: new Map<string, number>(),
    maxPerPath: 0,
    fast: [] as { heldThen: number; abortedThen: number }[],
    fail: 0,
    failing: true,
  };
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    await req.text();
    if (path.startsWith("/hold/")) {
      state.held++;
      state.maxHeld = Math.max(state.maxHeld, state.held);
      const open = (state.heldPaths.get(path) ?? 0) + 1;
      state.heldPaths.set(path, open);
      state.maxPerPath = Math.max(state.maxPerPath, open);
      const gaveUp = new Promise<void>((resolve) =>
        req.signal.addEventListener("abort", () => {
          state.aborted++;
          resolve();
        }, { once: true })
      );
      await Promise.race([released, gaveUp]);
      state.held--;
      state.heldPaths.set(path, state.heldPaths.get(path)! - 1);
      return new Response(null, { status: 204 });
    }
    if (path === "/fast") {
      state.fast.push({ heldThen: state.held, abortedThen: state.aborted });
      return new Response(null, { status: 204 });
    }
    if (path === "/fail") {
      state.fail++;
      return new Response(null, { status: state.failing ? 500 : 204 });
    }
    return new Response(null, { status: 404 });
  });
  const url = (path: string) => `http://127.0.0.1:${server.addr.port}${path}`;
  return { state, url, release, close: () => server.shutdown() };
}

async function subscribe(api: Client, token: string, url: string) {
  return expectStatus(
    await api.post("/api/webhooks", { token, body: { url, events: ["push.published"] } }),
    201,
  );
}

/** A push of a new device of the user becomes PUBLISHED: one push.published event. */
async function publish(server: TestServer, api: Client, user: { id: string; token: string }) {
  const device = await createDevice(server, user.id);
  await insertPush(server, device, user.id);
  expectStatus(await api.get(`/api/devices/${device.id}/push`, { token: user.token }), 200);
}

async function newUser(api: Client, name: string) {
  const reg = await registerUser(api, name);
  return { id: reg.user.id, token: reg.accessToken };
}

Deno.test({
  name: "webhooks fairness: one user's slow targets never hold another user's delivery",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const receiver = startReceiver();
    const server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: "1" });
    const api = client(server.url);
    try {
      const attacker = await newUser(api, "attacker");
      const victim = await newUser(api, "victim");
      // More slow targets than a worker has delivery slots, two events for each.
      for (let i = 0; i < 9; i++) {
        await subscribe(api, attacker.token, receiver.url(`/hold/${i}`));
      }
      await subscribe(api, victim.token, receiver.url("/fast"));
      await publish(server, api, attacker);
      await publish(server, api, attacker);
      await eventually(
        () => Promise.resolve(receiver.state.held >= TARGET_POLICY.userSlots),
        "the attacker's targets holding requests",
      );
      await publish(server, api, victim);
      const arrival = await eventually(
        () => Promise.resolve(receiver.state.fast[0]),
        "the victim's delivery",
      );
      // The victim's delivery went out while the slow targets still held their requests: it did
      // not wait for any of them to reach its deadline.
      assertEquals(arrival.abortedThen, 0);
      assert.ok(arrival.heldThen >= 1);
      // The attacker never had more than its share of requests open, one per target (its two
      // deliveries to a target never at once).
      assertEquals(receiver.state.maxHeld, TARGET_POLICY.userSlots);
      assertEquals(receiver.state.maxPerPath, 1);
      // Busy targets were deferred, not attempted: no attacker delivery has more attempts than
      // the ones that reached a target.
      const rows = await server.app.services.db.selectFrom("webhook_deliveries as d")
        .innerJoin("webhooks as w", "w.id", "d.webhook_id")
        .select(sql<number>`jsonb_array_length(d.attempts)`.as("n"))
        .where("w.user_id", "=", attacker.id).execute();
      assertEquals(rows.length, 18);
      assert.ok(rows.reduce((sum, r) => sum + Number(r.n), 0) <= receiver.state.aborted + 2);
    } finally {
      receiver.release();
      await server.close();
      await receiver.close();
    }
  },
});

Deno.test({
  name: "webhooks health: a failing target is slowed, then disabled with why; its owner enables it",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const receiver = startReceiver();
    const server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: "1" });
    const api = client(server.url);
    const { webhooks, db } = server.app.services;
    try {
      const owner = await newUser(api, "owner");
      const hook = await subscribe(api, owner.token, receiver.url("/fail"));
      const listed = async () => {
        const items = expectStatus(await api.get("/api/webhooks", { token: owner.token }), 200);
        return items.find((h: { id: string }) => h.id === hook.id);
      };
      const deliveries = async () =>
        expectStatus(
          await api.get(`/api/webhooks/${hook.id}/deliveries`, { token: owner.token }),
          200,
        ).items;

      await t.step("slowed after a failure in a row (a short policy)", async () => {
        Object.assign(webhooks.policy, { slowAfter: 1, pauseMs: 600_000, disableAfter: 3 });
        await publish(server, api, owner);
        const item = await eventually(async () => {
          const item = await listed();
          return item.consecutiveFailures === 1 ? item : null;
        }, "the first failure");
        assertEquals([item.state, item.disabledAt, item.disabledReason], ["slowed", null, null]);
        // A second event's delivery waits for the pause: never attempted meanwhile. Its job has
        // run and been sent again for the pause's end before the next step shortens the pause.
        await publish(server, api, owner);
        const items = await deliveries();
        assertEquals(items.length, 2);
        await eventually(async () => {
          const { rows } = await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-delivery'
              AND data->>'deliveryId' = ${items[0].id} AND data->>'deferrals' = '1'`.execute(db);
          return rows[0].n > 0 ? true : null;
        }, "the second delivery deferred");
        assertEquals((await deliveries())[0].attempts, []);
      });

      await t.step("disabled after three in a row, with why; pending deliveries fail", async () => {
        // The pause is shortened and the current one ended; the first delivery's retries (its
        // queue job was deferred past the long pause) are run here, as its worker would.
        Object.assign(webhooks.policy, { pauseMs: 1 });
        await db.updateTable("webhooks").set({ next_attempt_at: null }).where("id", "=", hook.id)
          .execute();
        const first = (await deliveries())[1].id;
        const item = await eventually(async () => {
          await webhooks.deliver({ deliveryId: first }, { number: 2, final: false }).catch(
            () => {},
          );
          const item = await listed();
          return item.state === "disabled" ? item : null;
        }, "the webhook disabled");
        assertEquals(item.consecutiveFailures, 3);
        assert.ok(!Number.isNaN(Date.parse(item.disabledAt)));
        assert.match(item.disabledReason, /^3 deliveries in a row failed, the last: Answered 500$/);
        const items = await deliveries();
        assertEquals(items.map((d: { status: string }) => d.status), ["failed", "failed"]);
        // The newer delivery was never attempted: it failed with its webhook.
        assertEquals(items[0].attempts, []);
        assertEquals(items[1].attempts.length, 3);
        assertEquals(receiver.state.fail, 3);
        // A disabled webhook records no delivery of a new event.
        await publish(server, api, owner);
        assertEquals((await deliveries()).length, 2);
      });

      await t.step("another user cannot enable it; bad ids", async () => {
        const other = await newUser(api, "stranger");
        const path = `/api/webhooks/${hook.id}/enable`;
        expectError(await api.post(path, { token: other.token }), 404);
        expectError(
          await api.post(`/api/webhooks/${crypto.randomUUID()}/enable`, {
            token: owner.token,
          }),
          404,
        );
        expectError(await api.post("/api/webhooks/nope/enable", { token: owner.token }), 400);
        expectError(await api.post(path), 401);
        assertEquals((await listed()).state, "disabled");
      });

      await t.step("the owner enables it: events are delivered again", async () => {
        receiver.state.failing = false;
        const enabled = expectStatus(
          await api.post(`/api/webhooks/${hook.id}/enable`, { token: owner.token }),
          200,
        );
        assertEquals(
          [enabled.state, enabled.consecutiveFailures, enabled.disabledAt, enabled.disabledReason],
          ["active", 0, null, null],
        );
        await publish(server, api, owner);
        const items = await eventually(async () => {
          const items = await deliveries();
          return items[0]?.status === "delivered" ? items : null;
        }, "a delivery after enabling");
        assertEquals(items.length, 3);
        assertEquals((await listed()).consecutiveFailures, 0);
      });
    } finally {
      receiver.release();
      await server.close();
      await receiver.close();
    }
  },
});
