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
  for (const file of ["services.ts", "schema.ts", "services_type.ts"]) {
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
