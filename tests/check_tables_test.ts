/** The table-ownership check of `deno task check` (issue 22: a domain's SQL names its own tables). */
import { join } from "node:path";
import { assertEquals } from "./helpers/assert.ts";
import {
  checkTables,
  declaredColumns,
  declaredTables,
  SHARED,
  tablesNamed,
} from "../tools/check_tables.ts";

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
    await write("admin.ts", 'sql`SELECT id FROM beta`; db.selectFrom("gamma");');
    const problems = await checkTables(root);
    const foreign = problems.filter((p) => p.includes("names beta"));
    // Outside the domains (the composition root, infrastructure) no table is one's own.
    assertEquals(
      foreign.map((p) => p.split(" names ")[0].split("/").slice(-2).join("/")).sort(),
      [
        "a/repository.ts",
        "lib/util.ts",
        `${root.split("/").at(-1)}/admin.ts`,
      ].sort(),
    );
    for (const problem of foreign) {
      assertEquals(problem.endsWith("a table of b: go through b's repository"), true);
    }
    // A name no domain declares (a CTE, a view of the root) is nobody's: not refused.
    assertEquals(problems.some((p) => p.includes("gamma")), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("check_tables: a table split by columns is each declarer's own, only when disjoint", async () => {
  assertEquals(
    [
      ...declaredColumns(
        "export interface GTables {\n  gamma: GammaColumns;\n  other: Missing;\n}\n" +
          "interface GammaColumns {\n  /** Why. */\n  g1: X;\n  g2?: Y;\n}\n",
      ),
    ],
    [["gamma", ["g1", "g2"]], ["other", undefined]],
  );
  const root = await Deno.makeTempDir();
  try {
    const write = async (path: string, text: string) => {
      await Deno.mkdir(join(root, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(root, path), text);
    };
    const tables = (name: string, columns: string[]) =>
      `export interface ${name}Tables {\n  gamma: ${name}Gamma;\n}\n` +
      `export interface ${name}Gamma {\n${columns.map((c) => `  ${c}: X;\n`).join("")}}\n`;
    await write("domains/a/tables.ts", tables("A", ["id", "owner"]));
    await write("domains/b/tables.ts", tables("B", ["serial", "batch"]));
    await write("domains/a/repository.ts", 'db.selectFrom("gamma");');
    await write("domains/b/repository.ts", 'db.updateTable("gamma");');
    assertEquals(await checkTables(root), []);
    // A column both declare is refused, and so is a declaration without its columns.
    await write("domains/b/tables.ts", tables("B", ["serial", "owner"]));
    assertEquals(await checkTables(root), ["gamma.owner is declared by both a and b"]);
    await write("domains/b/tables.ts", "export interface BTables {\n  gamma: Elsewhere;\n}\n");
    assertEquals(await checkTables(root), [
      "gamma is declared by a and b, but b's tables.ts does not list its columns",
    ]);
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
