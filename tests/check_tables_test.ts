/** The table-ownership check of `deno task check` (issue 22: a domain's SQL names its own tables). */
import { join } from "node:path";
import { assertEquals } from "./helpers/assert.ts";
import { checkTables, declaredTables, SHARED, tablesNamed } from "../tools/check_tables.ts";

Deno.test("check_tables: reads the tables a domain declares and the ones a query names", () => {
  const declared = declaredTables(
    "export interface AccountTables {\n  users: UsersTable;\n  sessions: X;\n}\n" +
      "interface Other {\n  nope: X;\n}\n",
  );
  assertEquals(declared, ["users", "sessions"]);
  const named = tablesNamed([
    'db.selectFrom("pushes as p").innerJoin("devices as d", "d.id", "p.device_id")',
    "trx.deleteFrom('files')",
    "sql`SELECT 1 FROM users u JOIN sessions s ON true`",
  ].join("\n"));
  assertEquals([...named].sort(), ["devices", "files", "pushes", "sessions", "users"]);
});

Deno.test("check_tables: a foreign table is refused, the own and listed ones pass", async () => {
  const root = await Deno.makeTempDir();
  try {
    const write = async (path: string, text: string) => {
      await Deno.mkdir(join(root, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(root, path), text);
    };
    await write("domains/a/tables.ts", "export interface ATables {\n  alpha: X;\n}\n");
    await write("domains/b/tables.ts", "export interface BTables {\n  beta: X;\n}\n");
    await write("domains/a/repository.ts", 'db.selectFrom("alpha"); db.selectFrom("beta");');
    await write("domains/a/repository_test.ts", 'db.selectFrom("beta");');
    await write("infra/lib/util.ts", 'db.selectFrom("beta");');
    const problems = await checkTables(root);
    const foreign = problems.filter((p) => p.includes("names beta"));
    assertEquals(foreign.length, 1);
    assertEquals(foreign[0].endsWith("a table of b: go through b's repository"), true);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("check_tables: the real tree passes, and every shared read says why", async () => {
  assertEquals(await checkTables("src"), []);
  for (const tables of Object.values(SHARED)) {
    for (const why of Object.values(tables)) assertEquals(why.length > 10, true);
  }
});
