/**
 * The declaration of what the database announces (announced.ts) against the triggers the
 * migrations create, and the write tracking against both: a cached table without a trigger, a
 * trigger without its declaration, or a tracking list that disagrees fails here.
 */
import { assertEquals } from "../../../../tests/helpers/assert.ts";
import {
  ANNOUNCED,
  type Announcement,
  DEVICE_COLUMNS,
  INSERTS_ANNOUNCED,
  tag,
  type TriggerEvent,
  UPDATES_ANNOUNCED,
} from "./announced.ts";

const MIGRATIONS = new URL("../../../../migrations/", import.meta.url);

/** Every `dds_notify_change` trigger of the migrations, merged by table. */
async function triggersOfMigrations(): Promise<Record<string, Announcement>> {
  const found: Record<string, Announcement> = {};
  const files = [...Deno.readDirSync(MIGRATIONS)].map((e) => e.name).filter((n) =>
    n.endsWith(".sql")
  ).sort();
  const trigger =
    /CREATE TRIGGER \w+ AFTER ([A-Z ]+?) ON (\w+)\s+FOR EACH ROW\s+(?:WHEN \(([\s\S]*?)\)\s+)?EXECUTE FUNCTION dds_notify_change\('(\w+)', '(\w+)'\)/g;
  for (const file of files) {
    const text = await Deno.readTextFile(new URL(file, MIGRATIONS));
    for (const [, events, table, when, kind, column] of text.matchAll(trigger)) {
      const on = events.split(" OR ").map((e) => e.trim() as TriggerEvent);
      const columns = when
        ? [...when.matchAll(/OLD\.(\w+) IS DISTINCT FROM NEW\.\1/g)].map((m) => m[1])
        : undefined;
      const known = found[table];
      if (known) {
        assertEquals([known.tag, known.column], [kind, column], `${table}: one tag per table`);
        found[table] = {
          ...known,
          on: [...new Set([...known.on, ...on])],
          // A trigger without WHEN on UPDATE widens what is announced.
          columns: on.includes("UPDATE") ? columns : known.columns,
        };
      } else {
        found[table] = {
          tag: kind as Announcement["tag"],
          column,
          on,
          ...(columns && { columns }),
        };
      }
    }
  }
  return found;
}

const normalised = (a: Record<string, Announcement>) =>
  Object.fromEntries(
    Object.entries(a).sort(([x], [y]) => x.localeCompare(y)).map((
      [table, { tag, column, on, columns }],
    ) => [table, { tag, column, on: [...on].sort(), columns: columns && [...columns].sort() }]),
  );

Deno.test("announced: the declaration is exactly the migrations' triggers", async () => {
  assertEquals(normalised(await triggersOfMigrations()), normalised(ANNOUNCED));
});

Deno.test("announced: the write tracking lists follow from the declaration", () => {
  for (const [table, a] of Object.entries(ANNOUNCED)) {
    assertEquals(UPDATES_ANNOUNCED.has(table), a.on.includes("UPDATE") && !a.columns, table);
    assertEquals(INSERTS_ANNOUNCED.has(table), a.on.includes("INSERT"), table);
  }
  assertEquals([...DEVICE_COLUMNS].sort(), ["latest_push_id", "owner_id"]);
});

Deno.test("announced: every tag a cache can carry is announced by some trigger", () => {
  const kinds = new Set(Object.values(ANNOUNCED).map((a) => a.tag));
  for (const [kind, make] of Object.entries(tag)) {
    assertEquals(kinds.has(kind as never), true, kind);
    assertEquals(make("x"), `${kind}:x`);
  }
});
