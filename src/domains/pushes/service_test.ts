/**
 * `PushesService`'s promotion and expiry rules (SPEC 3.1) on a migrated database: the embedded
 * one in a temporary directory, or a fresh database on DATABASE_URL's server. The devices service
 * is the real one; the store signs nothing (a URL names the key) and events are recorded.
 * tests/pushes_test.ts holds the same rules over HTTP and MQTT.
 */
import { sql } from "kysely";
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { createDatabase, externalDatabaseUrl } from "../../../tests/helpers/server.ts";
import { connect } from "../../infra/db/connect.ts";
import { migrate } from "../../infra/db/migrator.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import type { Jobs } from "../../infra/jobs/types.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import type { DB, Db } from "../../schema.ts";
import { DevicesService } from "../devices/service.ts";
import type { EventSink } from "../webhooks/events.ts";
import { PushesService } from "./service.ts";
import type { PushStatus } from "./tables.ts";
// The tables of the domains the rows below touch (their declarations add them to `DB`).
import type {} from "../accounts/mod.ts";
import type {} from "../devices/mod.ts";
import type {} from "./mod.ts";

/** A migrated database for this file's tests, dropped at the end. */
async function openDatabase(): Promise<{ db: Db; close(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "dds-pushes-" });
  const external = externalDatabaseUrl ? await createDatabase(externalDatabaseUrl) : undefined;
  const connection = await connect<DB>({ url: external?.url, dataDir: dir });
  await migrate(connection.db);
  return {
    db: connection.db,
    async close() {
      await connection.close();
      await external?.drop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

interface Published {
  userId: string;
  type: string;
  data: Record<string, unknown>;
}

/** The service under test with what it was built from, and one owned device to push to. */
async function setUp(db: Db) {
  const events: Published[] = [];
  const sink: EventSink = {
    emit: (_trx, userId, type, data) => Promise.resolve(void events.push({ userId, type, data })),
  };
  const signals: Array<{ thingName: string; body: Record<string, unknown> }> = [];
  const devices = new DevicesService({
    db,
    messenger: { publish: () => Promise.resolve() },
    outbox: {
      enqueue: (_trx, thingName, _channel, body) =>
        Promise.resolve(void signals.push({ thingName, body })),
    },
  });
  const store = {
    signedGetUrl: (key: string) => Promise.resolve(`https://store.test/${key}`),
  } as unknown as ObjectStore;
  const jobs = { send: () => Promise.resolve(null) } as unknown as Jobs;
  const pushes = new PushesService({ db, devices, store, jobs, events: sink });

  const userId = uuidv7();
  const name = userId.replaceAll("-", "").slice(-12);
  await sql`INSERT INTO users (id, email, username) VALUES
    (${userId}, ${`${name}@example.com`}, ${`u${name}`})`.execute(db);
  const deviceId = uuidv7();
  const thingName = `thing-${name}`;
  await sql`INSERT INTO devices (id, hw_id, thing_name, owner_id) VALUES
    (${deviceId}, ${`hw-${name}`}, ${thingName}, ${userId})`.execute(db);
  let clock = Date.parse("2026-01-01T00:00:00Z");

  /** A push of the device in `status`, created after the previous one (rendered unless PREPARE). */
  async function push(status: PushStatus, priority = 0): Promise<string> {
    const id = uuidv7();
    clock += 1000;
    await sql`INSERT INTO pushes
      (id, device_id, user_id, status, priority, template, render_prefix, created_at)
      VALUES (${id}, ${deviceId}, ${userId}, ${status}, ${priority}, 'test',
        ${status === "PREPARE" ? null : `renders/${id}/`}, ${new Date(clock)})`.execute(db);
    return id;
  }

  /** Makes `pushId` the device's latest push, as a promotion would have. */
  async function makeLatest(pushId: string) {
    await sql`UPDATE devices SET latest_push_id = ${pushId}, latest_push_at = now()
      WHERE id = ${deviceId}`.execute(db);
  }

  /** Every push of the device's status, by id. */
  async function statuses(): Promise<Record<string, PushStatus>> {
    const { rows } = await sql<{ id: string; status: PushStatus }>`
      SELECT id, status FROM pushes WHERE device_id = ${deviceId}`.execute(db);
    return Object.fromEntries(rows.map((row) => [row.id, row.status]));
  }

  async function latest(): Promise<string | null> {
    const { rows } = await sql<{ latest_push_id: string | null }>`
      SELECT latest_push_id FROM devices WHERE id = ${deviceId}`.execute(db);
    return rows[0].latest_push_id;
  }

  return {
    pushes,
    events,
    signals,
    userId,
    deviceId,
    thingName,
    push,
    makeLatest,
    statuses,
    latest,
  };
}

/** Whether `promise` is refused with the AppError status `status`. */
async function refusedWith(promise: Promise<unknown>, status: number) {
  await assert.rejects(promise, (error: { status?: number }) => error.status === status);
}

Deno.test("pushes service: SPEC 3.1 promotion and expiry", async (t) => {
  const database = await openDatabase();
  const { db } = database;
  try {
    await t.step(
      "get with no latest publishes the highest priority, oldest first on a tie",
      async () => {
        const s = await setUp(db);
        const low = await s.push("QUEUE", 0);
        const highOld = await s.push("QUEUE", 5);
        const highNew = await s.push("QUEUE", 5);
        const rendering = await s.push("PREPARE", 9);
        const got = await s.pushes.get(s.userId, s.deviceId, "png");
        assertEquals([got.pushId, got.changed, got.status], [highOld, true, "PUBLISHED"]);
        assertEquals(got.url, `https://store.test/renders/${highOld}/image.png`);
        assertEquals(await s.latest(), highOld);
        assertEquals(await s.statuses(), {
          [low]: "QUEUE",
          [highOld]: "PUBLISHED",
          [highNew]: "QUEUE",
          [rendering]: "PREPARE",
        });
        assertEquals(s.events, [{
          userId: s.userId,
          type: "push.published",
          data: { pushId: highOld, deviceId: s.deviceId, status: "PUBLISHED" },
        }]);
      },
    );

    await t.step(
      "get with a latest push changes nothing, even with a better one queued",
      async () => {
        const s = await setUp(db);
        const current = await s.push("PUBLISHED", 0);
        await s.makeLatest(current);
        const better = await s.push("QUEUE", 10);
        for (let i = 0; i < 2; i++) {
          const got = await s.pushes.get(s.userId, s.deviceId, "raw2");
          assertEquals([got.pushId, got.changed, got.status], [current, false, "PUBLISHED"]);
          assertEquals(got.url, `https://store.test/renders/${current}/image2.raw`);
        }
        assertEquals(await s.statuses(), { [current]: "PUBLISHED", [better]: "QUEUE" });
        assertEquals(s.events, []);
      },
    );

    await t.step(
      "get with nothing queued is 404; a push still rendering is never published",
      async () => {
        const s = await setUp(db);
        const rendering = await s.push("PREPARE", 3);
        await refusedWith(s.pushes.get(s.userId, s.deviceId, "png"), 404);
        assertEquals(await s.statuses(), { [rendering]: "PREPARE" });
        assertEquals(await s.latest(), null);
      },
    );

    await t.step(
      "refresh publishes the highest priority and the previous latest expires",
      async () => {
        const s = await setUp(db);
        const previous = await s.push("PUBLISHED");
        await s.makeLatest(previous);
        const low = await s.push("QUEUE", 1);
        const high = await s.push("QUEUE", 2);
        const got = await s.pushes.refresh(s.userId, s.deviceId, "png");
        assertEquals([got.pushId, got.changed, got.status], [high, true, "PUBLISHED"]);
        assertEquals(await s.statuses(), {
          [previous]: "EXPIRED",
          [low]: "QUEUE",
          [high]: "PUBLISHED",
        });
        assertEquals(await s.latest(), high);
        // The next refresh takes the one left, and the one it replaces expires in turn.
        const next = await s.pushes.refresh(s.userId, s.deviceId, "png");
        assertEquals([next.pushId, next.changed], [low, true]);
        assertEquals(await s.statuses(), {
          [previous]: "EXPIRED",
          [low]: "PUBLISHED",
          [high]: "EXPIRED",
        });
        assertEquals(s.events.map((e) => e.data.pushId), [high, low]);
      },
    );

    await t.step("a confirmed latest push expires on refresh too", async () => {
      const s = await setUp(db);
      const confirmed = await s.push("CONFIRMED");
      await s.makeLatest(confirmed);
      const queued = await s.push("QUEUE");
      const got = await s.pushes.refresh(s.userId, s.deviceId, "png");
      assertEquals([got.pushId, got.changed], [queued, true]);
      assertEquals(await s.statuses(), { [confirmed]: "EXPIRED", [queued]: "PUBLISHED" });
    });

    await t.step(
      "refresh with nothing queued keeps the latest (not expired); with no push, 404",
      async () => {
        const s = await setUp(db);
        await refusedWith(s.pushes.refresh(s.userId, s.deviceId, "png"), 404);
        const current = await s.push("PUBLISHED");
        await s.makeLatest(current);
        const rendering = await s.push("PREPARE", 7);
        const got = await s.pushes.refresh(s.userId, s.deviceId, "png");
        assertEquals([got.pushId, got.changed, got.status], [current, false, "PUBLISHED"]);
        assertEquals(await s.statuses(), { [current]: "PUBLISHED", [rendering]: "PREPARE" });
        assertEquals(s.events, []);
      },
    );

    await t.step("refresh with no latest publishes without expiring anything", async () => {
      const s = await setUp(db);
      const old = await s.push("EXPIRED", 9);
      const queued = await s.push("QUEUE", 0);
      const got = await s.pushes.refresh(s.userId, s.deviceId, "png");
      assertEquals([got.pushId, got.changed], [queued, true]);
      assertEquals(await s.statuses(), { [old]: "EXPIRED", [queued]: "PUBLISHED" });
    });

    await t.step("an expired push is never published again by get or refresh", async () => {
      const s = await setUp(db);
      const expired = await s.push("EXPIRED", 100);
      await refusedWith(s.pushes.get(s.userId, s.deviceId, "png"), 404);
      await refusedWith(s.pushes.refresh(s.userId, s.deviceId, "png"), 404);
      assertEquals(await s.statuses(), { [expired]: "EXPIRED" });
      // Nor confirmed: only a PUBLISHED push becomes CONFIRMED.
      assertEquals(await s.pushes.confirmDisplayed(s.thingName, expired), false);
      assertEquals(await s.statuses(), { [expired]: "EXPIRED" });
    });

    await t.step(
      "the device confirms its published push; the one refresh replaces expires",
      async () => {
        const s = await setUp(db);
        const shown = await s.push("QUEUE");
        await s.pushes.get(s.userId, s.deviceId, "png");
        assertEquals(await s.pushes.confirmDisplayed(s.thingName, shown), true);
        assertEquals(await s.pushes.confirmDisplayed(s.thingName, shown), false);
        assertEquals(await s.statuses(), { [shown]: "CONFIRMED" });
        const next = await s.push("QUEUE");
        await s.pushes.refresh(s.userId, s.deviceId, "png");
        assertEquals(await s.statuses(), { [shown]: "EXPIRED", [next]: "PUBLISHED" });
        assertEquals(s.events.map((e) => e.type), [
          "push.published",
          "push.confirmed",
          "push.published",
        ]);
      },
    );

    await t.step(
      "current-push returns the previous latest to QUEUE, not EXPIRED, and signals",
      async () => {
        const s = await setUp(db);
        const previous = await s.push("PUBLISHED");
        await s.makeLatest(previous);
        const chosen = await s.push("QUEUE", -5);
        await s.pushes.setCurrent(s.userId, s.deviceId, chosen);
        assertEquals(await s.statuses(), { [previous]: "QUEUE", [chosen]: "PUBLISHED" });
        assertEquals(await s.latest(), chosen);
        assertEquals(s.signals, [{
          thingName: s.thingName,
          body: { kind: "new_push", pushId: chosen },
        }]);
        // The one returned to the queue is the next refresh's (the only one queued).
        const got = await s.pushes.refresh(s.userId, s.deviceId, "png");
        assertEquals(got.pushId, previous);
        assertEquals(await s.statuses(), { [previous]: "PUBLISHED", [chosen]: "EXPIRED" });
        // A push still rendering cannot be made current: 404, nothing moves.
        const rendering = await s.push("PREPARE");
        await refusedWith(s.pushes.setCurrent(s.userId, s.deviceId, rendering), 404);
        assertEquals(await s.latest(), previous);
      },
    );

    await t.step("reading a push by id changes no state (rule 3)", async () => {
      const s = await setUp(db);
      const queued = await s.push("QUEUE");
      const got = await s.pushes.getById(s.userId, s.deviceId, queued, "png");
      assertEquals([got.pushId, got.changed, got.status], [queued, false, "QUEUE"]);
      assertEquals(await s.statuses(), { [queued]: "QUEUE" });
      assertEquals(await s.latest(), null);
    });

    await t.step("another user's device is refused (403) and nothing is promoted", async () => {
      const s = await setUp(db);
      const other = await setUp(db);
      const queued = await s.push("QUEUE");
      await refusedWith(s.pushes.get(other.userId, s.deviceId, "png"), 403);
      await refusedWith(s.pushes.refresh(other.userId, s.deviceId, "png"), 403);
      assertEquals(await s.statuses(), { [queued]: "QUEUE" });
    });

    await t.step(
      "the device's own messages follow the same rules (MQTT get and refresh)",
      async () => {
        const s = await setUp(db);
        const first = await s.push("QUEUE", 1);
        const second = await s.push("QUEUE", 0);
        const got = await s.pushes.forThing(s.thingName, "get", "png");
        assertEquals([got?.pushId, got?.changed], [first, true]);
        const refreshed = await s.pushes.forThing(s.thingName, "refresh", "png");
        assertEquals([refreshed?.pushId, refreshed?.changed], [second, true]);
        assertEquals(await s.statuses(), { [first]: "EXPIRED", [second]: "PUBLISHED" });
        assertEquals(await s.pushes.forThing("no-such-thing", "get", "png"), undefined);
      },
    );

    await t.step(
      "concurrent gets publish one push once; concurrent refreshes one each",
      async () => {
        const s = await setUp(db);
        // Priorities 10..1: the order in which they are taken.
        const queued: string[] = [];
        for (let priority = 10; priority >= 1; priority--) {
          queued.push(await s.push("QUEUE", priority));
        }
        const gets = await Promise.all(
          Array.from({ length: 8 }, () => s.pushes.get(s.userId, s.deviceId, "png")),
        );
        assertEquals(new Set(gets.map((g) => g.pushId)), new Set([queued[0]]));
        assertEquals(gets.filter((g) => g.changed).length, 1);
        const refreshes = await Promise.all(
          queued.slice(1).map(() => s.pushes.refresh(s.userId, s.deviceId, "png")),
        );
        // Each refresh took the next in line: never the same one twice, never one skipped.
        assertEquals(new Set(refreshes.map((r) => r.pushId)), new Set(queued.slice(1)));
        assertEquals(refreshes.every((r) => r.changed), true);
        const after = await s.statuses();
        assertEquals(after[queued[9]], "PUBLISHED");
        assertEquals(await s.latest(), queued[9]);
        for (const id of queued.slice(0, 9)) assertEquals(after[id], "EXPIRED");
      },
    );
  } finally {
    await database.close();
  }
});
