/**
 * CONTRACT.md "Display ownership and fair shares": render jobs are scheduled fairly per user, so
 * one user's queued pushes never wait behind another user's flood (issue 33 item 4). Positions,
 * not durations: who was rendered before whom.
 */
import { sql } from "kysely";
import { assert, assertEquals } from "./helpers/assert.ts";
import { createDevice } from "./helpers/devices.ts";
import { registerUser } from "./helpers/http.ts";
import { eventually } from "./helpers/mqtt.ts";
import { externalDatabaseUrl, type TestServer } from "./helpers/server.ts";
import { serverSuite } from "./helpers/suite.ts";

const suite = serverSuite("render-fairness");

const note = (userId: string, deviceId: string, body: string) => ({
  userId,
  deviceId,
  template: "note",
  params: { body },
});

/** The render job priorities of these pushes, by push id. */
async function jobPriorities(s: TestServer, pushIds: string[]) {
  const { rows } = await sql<{ push_id: string; priority: number }>`
    select data->>'pushId' as push_id, priority from pgboss.job
    where name = 'render' and data->>'pushId' = any(${pushIds})`.execute(s.app.services.db);
  return new Map(rows.map((row) => [row.push_id, row.priority]));
}

suite.test(
  "another user's push renders before a flood of 40 pushes of one user is through",
  async (api, s) => {
    const [flooder, other] = [await registerUser(api, "flood"), await registerUser(api, "other")];
    const [floodDevice, otherDevice] = [
      await createDevice(s, flooder.user.id),
      await createDevice(s, other.user.id),
    ];
    const { db, pushes } = s.app.services;
    // All 41 jobs become visible to the workers at once, the other user's last.
    const { flood, single } = await db.transaction().execute(async (trx) => {
      const flood = [];
      for (let i = 0; i < 40; i++) {
        flood.push((await pushes.create(note(flooder.user.id, floodDevice.id, `n${i}`), trx)).id);
      }
      const single = (await pushes.create(note(other.user.id, otherDevice.id, "mine"), trx)).id;
      return { flood, single };
    });
    const priorities = await jobPriorities(s, [...flood, single]);
    assertEquals(flood.map((id) => priorities.get(id)), flood.map((_, i) => i === 0 ? 0 : -i));
    assertEquals(priorities.get(single), 0);
    const rows = await eventually(async () => {
      const rows = await db.selectFrom("pushes").select(["id", "status", "rendered_at"])
        .where("id", "in", [...flood, single]).execute();
      return rows.every((row) => row.status === "QUEUE") ? rows : null;
    }, "41 renders");
    const renderedAt = new Map(rows.map((row) => [row.id, row.rendered_at!.getTime()]));
    const before = flood.filter((id) => renderedAt.get(id)! < renderedAt.get(single)!).length;
    // First come first served would render all 40 first. Fairly, the other push is taken with
    // the flood's first (both have priority 0); one more of the flood may finish on the other
    // thread while it renders.
    assert.ok(before <= 3, `${before} of the flood rendered before the other user's push`);
  },
);

suite.test(
  "a user's pushes made one after another each go one place further back",
  async (api, s) => {
    const user = await registerUser(api, "queue");
    const device = await createDevice(s, user.user.id);
    const { db, pushes } = s.app.services;
    const ids = await db.transaction().execute(async (trx) => {
      const ids = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await pushes.create(note(user.user.id, device.id, `n${i}`), trx)).id);
      }
      return ids;
    });
    const priorities = await jobPriorities(s, ids);
    assertEquals(ids.map((id) => priorities.get(id)), [0, -1, -2]);
  },
);

if (externalDatabaseUrl) {
  suite.test(
    "concurrent pushes of one user count one after another (the user's lock)",
    async (api, s) => {
      const user = await registerUser(api, "race");
      const device = await createDevice(s, user.user.id);
      const { db, pushes } = s.app.services;
      let release!: () => void;
      const held = new Promise<void>((resolve) => release = resolve);
      let firstId = "";
      const first = db.transaction().execute(async (trx) => {
        firstId = (await pushes.create(note(user.user.id, device.id, "first"), trx)).id;
        await held;
      });
      await eventually(() => Promise.resolve(firstId !== ""), "the first push");
      const second = pushes.create(note(user.user.id, device.id, "second"));
      // The second waits for the first's lock: without it both counted no push waiting.
      await eventually(async () => {
        const { rows } = await sql<{ waiting: number }>`
          select count(*)::int as waiting from pg_locks
          where locktype = 'advisory' and not granted`.execute(db);
        return rows[0].waiting > 0;
      }, "the second push to wait for the user's lock");
      release();
      await first;
      const secondId = (await second).id;
      const priorities = await jobPriorities(s, [firstId, secondId]);
      assertEquals([priorities.get(firstId), priorities.get(secondId)], [0, -1]);
    },
  );
}

suite.end();
