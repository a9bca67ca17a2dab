/**
 * The declaration of what the database announces (announced.ts) against the triggers the
 * migrations create, and the write tracking against both: a cached table without a trigger, a
 * trigger without its declaration, or a tracking list that disagrees fails here.
 */
import { assertEquals } from "../../../../tests/helpers/assert.ts";
import {
  ANNOUNCED,
  type Announcement,
  announcementsOf,
  DEVICE_COLUMNS,
  INSERTS_ANNOUNCED,
  tag,
  type TriggerEvent,
  UPDATES_ANNOUNCED,
} from "./announced.ts";

const MIGRATIONS = new URL("../../../../migrations/", import.meta.url);

/** Every `dds_notify_change` trigger of the migrations, merged by table and tag. */
async function triggersOfMigrations(): Promise<Record<string, Announcement[]>> {
  const found: Record<string, Announcement[]> = {};
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
      const list = found[table] ??= [];
      const i = list.findIndex((a) => a.tag === kind && a.column === column);
      if (i >= 0) {
        const known = list[i];
        list[i] = {
          ...known,
          on: [...new Set([...known.on, ...on])],
          // A trigger without WHEN on UPDATE widens what is announced.
          columns: on.includes("UPDATE") ? columns : known.columns,
        };
      } else {
        list.push({
          tag: kind as Announcement["tag"],
          column,
          on,
          ...(columns && { columns }),
        });
      }
    }
  }
  return found;
}

const normalised = (a: Record<string, Announcement | readonly Announcement[]>) =>
  Object.fromEntries(
    Object.entries(a).sort(([x], [y]) => x.localeCompare(y)).map((
      [table, list],
    ) => [
      table,
      (Array.isArray(list) ? list : [list as Announcement])
        .map(({ tag, column, on, columns }) => ({
          tag,
          column,
          on: [...on].sort(),
          columns: columns && [...columns].sort(),
        }))
        .sort((x, y) => x.tag.localeCompare(y.tag)),
    ]),
  );

Deno.test("announced: the declaration is exactly the migrations' triggers", async () => {
  assertEquals(normalised(await triggersOfMigrations()), normalised(ANNOUNCED));
});

Deno.test("announced: the write tracking lists follow from the declaration", () => {
  for (const table of Object.keys(ANNOUNCED)) {
    const list = announcementsOf(table);
    assertEquals(
      UPDATES_ANNOUNCED.has(table),
      list.some((a) => a.on.includes("UPDATE") && !a.columns),
      table,
    );
    assertEquals(INSERTS_ANNOUNCED.has(table), list.some((a) => a.on.includes("INSERT")), table);
  }
  assertEquals([...DEVICE_COLUMNS].sort(), ["latest_push_id", "owner_id"]);
});

Deno.test("announced: every tag a cache can carry is announced by some trigger", () => {
  const kinds = new Set(
    Object.keys(ANNOUNCED).flatMap((t) => announcementsOf(t).map((a) => a.tag)),
  );
  for (const [kind, make] of Object.entries(tag)) {
    assertEquals(kinds.has(kind as never), true, kind);
    assertEquals(make("x"), `${kind}:x`);
  }
});
