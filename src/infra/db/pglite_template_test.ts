import { sql } from "kysely";
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { connect } from "./connect.ts";
import type { QueueSettings } from "../jobs/types.ts";
import {
  clearPartial,
  copyFromTemplate,
  hasCluster,
  saveTemplate,
  templateName,
  templateRoot,
} from "./pglite_template.ts";

async function files(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(`${dir}${prefix}`)) {
    const path = `${prefix}/${entry.name}`;
    if (entry.isDirectory) out.push(...await files(dir, path));
    else out.push(`${path}=${await Deno.readTextFile(`${dir}${path}`)}`);
  }
  return out.sort();
}

/** Two queues of the jobs' shape (the service's own come from its domains). */
const QUEUES: QueueSettings[] = ["render", "sweep"].map((name) => ({
  name,
  retry: { limit: 2, delaySeconds: 5, maxDelaySeconds: 60 },
  policy: "standard",
  expireInSeconds: 300,
}));

Deno.test("templates live in the user's cache directory, or nowhere without one", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(
    templateRoot(env({ HOME: "/home/a" })),
    "/home/a/.cache/device-display-service/pglite",
  );
  assert.equal(
    templateRoot(env({ HOME: "/home/a", XDG_CACHE_HOME: "/c" })),
    "/c/device-display-service/pglite",
  );
  assert.equal(templateRoot(env({})), undefined);
});

Deno.test("a template's name changes with the migration files", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const url = new URL(`file://${dir}/`);
    await Deno.writeTextFile(`${dir}/0001_a.sql`, "CREATE TABLE a (x int);");
    const first = await templateName(url);
    assert.match(first, /^pglite-\d+\.\d+\.\d+-[0-9a-f]{16}$/);
    assert.equal(await templateName(url), first);
    await Deno.writeTextFile(`${dir}/0001_a.sql`, "CREATE TABLE a (y int);");
    const edited = await templateName(url);
    assert.notEqual(edited, first);
    await Deno.writeTextFile(`${dir}/0002_b.sql`, "CREATE TABLE b (x int);");
    const added = await templateName(url);
    assert.notEqual(added, edited);
    // The jobs' queues are part of it too.
    const withQueues = await templateName(url, QUEUES);
    assert.notEqual(withQueues, added);
    const changed = [{ ...QUEUES[0], expireInSeconds: 61 }, QUEUES[1]];
    assert.notEqual(await templateName(url, changed), withQueues);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a saved template copies back whole, without the lock, and the first saved stays", async () => {
  const root = await Deno.makeTempDir();
  const made = await Deno.makeTempDir();
  const fresh = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${made}/base/1`, { recursive: true });
    await Deno.writeTextFile(`${made}/PG_VERSION`, "17");
    await Deno.writeTextFile(`${made}/base/1/1259`, "catalog");
    await Deno.writeTextFile(`${made}/dds.lock`, "123");
    await saveTemplate(root, "pglite-t-1", made);
    assert.ok(await hasCluster(`${root}/pglite-t-1`));
    // Another process saving the same template later leaves the first in place.
    await Deno.writeTextFile(`${made}/base/1/1259`, "other");
    await saveTemplate(root, "pglite-t-1", made);
    assert.equal(await Deno.readTextFile(`${root}/pglite-t-1/base/1/1259`), "catalog");
    // Nothing half-written is left beside it.
    const names = [];
    for await (const entry of Deno.readDir(root)) names.push(entry.name);
    assert.deepEqual(names, ["pglite-t-1"]);

    await Deno.writeTextFile(`${fresh}/dds.lock`, "456");
    assert.ok(await copyFromTemplate(root, "pglite-t-1", fresh));
    assert.deepEqual(await files(fresh), [
      "/PG_VERSION=17",
      "/base/1/1259=catalog",
      "/dds.lock=456",
    ]);
    // No template of that name: nothing copied.
    assert.equal(await copyFromTemplate(root, "pglite-t-2", fresh), false);
  } finally {
    for (const dir of [root, made, fresh]) await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("saving a template removes other templates older than a day, not newer ones", async () => {
  const root = await Deno.makeTempDir();
  const made = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${made}/PG_VERSION`, "17");
    for (const name of ["pglite-old", "pglite-recent"]) {
      await Deno.mkdir(`${root}/${name}`);
      await Deno.writeTextFile(`${root}/${name}/PG_VERSION`, "17");
    }
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600_000);
    await Deno.utime(`${root}/pglite-old`, twoDaysAgo, twoDaysAgo);
    await saveTemplate(root, "pglite-new", made);
    const names = [];
    for await (const entry of Deno.readDir(root)) names.push(entry.name);
    assert.deepEqual(names.sort(), ["pglite-new", "pglite-recent"]);
  } finally {
    for (const dir of [root, made]) await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("what an interrupted creation left is cleared, the lock stays", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/base/1`, { recursive: true });
    await Deno.writeTextFile(`${dir}/base/1/1259`, "half");
    await Deno.writeTextFile(`${dir}/dds.lock`, "1");
    await clearPartial(dir);
    assert.deepEqual(await files(dir), ["/dds.lock=1"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a fresh data directory opens migrated, the second one from the template", async () => {
  const cache = await Deno.makeTempDir();
  const dirs = [await Deno.makeTempDir(), await Deno.makeTempDir(), await Deno.makeTempDir()];
  const previous = Deno.env.get("XDG_CACHE_HOME");
  Deno.env.set("XDG_CACHE_HOME", cache);
  try {
    const migrations =
      (await Array.fromAsync(Deno.readDir(new URL("../../../migrations/", import.meta.url))))
        .filter((entry) => entry.name.endsWith(".sql")).length;
    const root = templateRoot()!;
    const name = await templateName(undefined, QUEUES);
    for (const [i, dataDir] of dirs.slice(0, 2).entries()) {
      const connection = await connect({ dataDir, jobQueues: QUEUES });
      try {
        const applied = await sql<{ n: number }>`SELECT count(*)::int AS n FROM schema_migrations`
          .execute(connection.db);
        assert.equal(applied.rows[0].n, migrations, `directory ${i}`);
        // pg-boss's schema and every queue are there before the service starts its jobs.
        const queues = await sql<{ name: string }>`SELECT name FROM pgboss.queue
          WHERE name NOT LIKE '\_\_pgboss%' ORDER BY name`
          .execute(connection.db);
        assertEquals(
          queues.rows.map((q) => q.name),
          QUEUES.map((q) => q.name),
          `directory ${i}`,
        );
        await sql`CREATE TABLE mine_${sql.raw(String(i))} (x int)`.execute(connection.db);
      } finally {
        await connection.close();
      }
      // Made by the first start, used by the second.
      assert.ok(await hasCluster(`${root}/${name}`));
    }
    // The template holds the migrated schema only, not what a database did after it opened.
    const copy = await connect({ dataDir: dirs[2], jobQueues: QUEUES });
    try {
      const mine = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'mine_%'`.execute(copy.db);
      assert.equal(mine.rows[0].n, 0);
    } finally {
      await copy.close();
    }
  } finally {
    if (previous === undefined) Deno.env.delete("XDG_CACHE_HOME");
    else Deno.env.set("XDG_CACHE_HOME", previous);
    for (const dir of [cache, ...dirs]) await Deno.remove(dir, { recursive: true });
  }
});
