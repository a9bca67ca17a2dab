/** The list of domains is complete: every domain folder shows its face there, once. */
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { declaredResources } from "./infra/access/mod.ts";
import { AppError } from "./errors.ts";
import { domainsOf, layoutProblems } from "../tools/domains.ts";
import { DOMAINS } from "./domains.ts";

const ROOT = new URL(".", import.meta.url).pathname;

/** Entries of the list that are infrastructure placed for their routes' order, not domains. */
const INFRASTRUCTURE = ["storage"];

const folderOf = (name: string) => INFRASTRUCTURE.includes(name) ? "infra" : "domains";

Deno.test("domains: src/domains.ts lists every folder of src/domains/, each once", async () => {
  const listed = DOMAINS.map((domain) => domain.name).filter((name) =>
    !INFRASTRUCTURE.includes(name)
  );
  assertEquals(new Set(listed).size, listed.length);
  assertEquals([...listed].sort(), await domainsOf(ROOT));
});

Deno.test("domains: a face's name is its folder's", async () => {
  for (const domain of DOMAINS) {
    const path = `./${folderOf(domain.name)}/${domain.name}/mod.ts`;
    const face = await import(path);
    assertEquals(face[domain.name], domain, `src/${path.slice(2)}`);
  }
});

Deno.test("domains: src/ holds the root's files, domains/ and infra/ only", async () => {
  assertEquals(await layoutProblems(ROOT), []);
});

Deno.test("domains: the services, the database's type and Services name no domain", async () => {
  // A new domain adds itself from its folder (issue 22): these files stay as they are.
  for (const file of ["build_services.ts", "schema.ts", "services.ts"]) {
    const text = await Deno.readTextFile(`${ROOT}${file}`);
    assertEquals(text.match(/from "\.\/domains\/[^"]+"/g), null, `src/${file}`);
  }
});

Deno.test("domains: every kind of user resource but a device hides another user's as 404 (SPEC 5.8)", () => {
  // Importing the list loaded every face and so every kind its domain declares
  // (`access.hidden` / `access.resource` beside the checks); the access test's own are "test-".
  const kinds = declaredResources().filter((kind) => !kind.kind.startsWith("test-"));
  assert(kinds.some((kind) => kind.kind === "push"), "the domains' kinds are loaded");
  const status = (refusal: { code: AppError["code"]; message: string }) =>
    new AppError(refusal.code, refusal.message).status;
  for (const kind of kinds) {
    assertEquals(status(kind.missing), 404, kind.kind);
    if (kind.kind === "device") assertEquals(status(kind.notOwned), 403, "SPEC 4.5");
    else assertEquals(kind.notOwned, kind.missing, kind.kind);
  }
});

/**
 * The files outside the domain folders whose code imports a domain (tests aside), with the
 * domains each imports: `src/domains.ts` every domain (the checklist's one line, docs/architecture.md
 * "Where a new domain's files go"), the others one domain each, on purpose. A new domain imported
 * from anywhere else fails here: its face, not another file of the root, is how it joins in.
 */
const IMPORTS_OUTSIDE: Record<string, string[] | "every domain"> = {
  "domains.ts": "every domain",
  // The operator's `admin set-plan` finds the account through accounts' operator service and
  // sets the plan through billing's repository.
  "admin.ts": ["accounts", "billing"],
  // The API processes subscribe the pushes' device inbox; the access-token keys open at start.
  "app.ts": ["accounts", "pushes"],
  // The devices' messenger and outbox are infrastructure the context hands every build.
  "face.ts": ["devices"],
  // The factory's signing keys are among the secrets loaded at start.
  "secrets.ts": ["factory"],
  // Warming up signs and checks an access token.
  "warm_up.ts": ["accounts"],
};

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) {
      if (path !== `${ROOT}domains`) yield* sourceFiles(path);
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) yield path;
  }
}

Deno.test("domains: outside its folder a domain is imported by src/domains.ts only (and the listed ties)", async () => {
  const everyDomain = await domainsOf(ROOT);
  const found: Record<string, string[] | "every domain"> = {};
  for await (const path of sourceFiles(ROOT.replace(/\/$/, ""))) {
    const text = await Deno.readTextFile(path);
    const imported = [
      ...text.matchAll(/(?:from|import\()\s*"[./]*\/?domains\/([a-z_]+)\//g),
    ].map((m) => m[1]);
    if (imported.length === 0) continue;
    const domains = [...new Set(imported)].sort();
    found[path.slice(ROOT.length)] = domains.join() === everyDomain.join()
      ? "every domain"
      : domains;
  }
  assertEquals(found, IMPORTS_OUTSIDE);
});

Deno.test('domains: docs/architecture.md\'s "Who owns what" has a row for every domain', async () => {
  const doc = await Deno.readTextFile(`${ROOT}../docs/architecture.md`);
  const section = doc.slice(
    doc.indexOf("## Who owns what"),
    doc.indexOf("`devices` is the one table"),
  );
  const rows = [...section.matchAll(/^\| ([a-z]+) +\|/gm)].map((m) => m[1]).sort();
  assertEquals(rows, await domainsOf(ROOT));
});

/**
 * The keys of the `Services` interface a file declares (`export interface`) or adds to (inside
 * its `declare module "…/services.ts"`).
 */
function servicesDeclaredIn(text: string): string[] {
  const from = Math.max(0, text.search(/declare module "[./]*\/services\.ts"/));
  const at = text.slice(from).search(/^\s*(?:export )?interface Services \{/m);
  if (at === -1) return [];
  const body = text.slice(text.indexOf("{", from + at) + 1);
  return [...body.slice(0, body.search(/\n\s*\}/)).matchAll(/^\s+(\w+)\??:/gm)].map((m) => m[1]);
}

Deno.test("domains: docs/architecture.md says where each entry of Services is declared", async () => {
  const declared: Record<string, string[]> = {};
  const files = [`${ROOT}services.ts`];
  for (const domain of await domainsOf(ROOT)) {
    for await (const entry of Deno.readDir(`${ROOT}domains/${domain}`)) {
      if (entry.name.endsWith(".ts")) files.push(`${ROOT}domains/${domain}/${entry.name}`);
    }
  }
  for (const file of files) {
    const text = await Deno.readTextFile(file);
    const isRoot = file === `${ROOT}services.ts`;
    if (!isRoot && !/declare module "[./]*\/services\.ts"/.test(text)) continue;
    const names = servicesDeclaredIn(text);
    if (names.length) declared[`src/${file.slice(ROOT.length)}`] = names.sort();
  }
  const doc = await Deno.readTextFile(`${ROOT}../docs/architecture.md`);
  const table: Record<string, string[]> = {};
  for (const [, names, file] of doc.matchAll(/^\| (`\w+`(?:, `\w+`)*) +\| `([^`]+)`.*\|$/gm)) {
    table[file] = [...names.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort();
  }
  assertEquals(table, declared);
});
