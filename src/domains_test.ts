/** The list of domains is complete: every domain folder shows its face there, once. */
import { assertEquals } from "../tests/helpers/assert.ts";
import { domainsOf } from "../tools/domains.ts";
import { DOMAINS } from "./domains.ts";

/**
 * Entries of the list that are not domains: infrastructure placed for its routes' order, and the
 * MCP surface (it owns no tables and no router of its own).
 */
const INFRASTRUCTURE = ["storage", "mcp"];

Deno.test("domains: src/domains.ts lists every domain folder of src/, each once", async () => {
  const listed = DOMAINS.map((domain) => domain.name).filter((name) =>
    !INFRASTRUCTURE.includes(name)
  );
  assertEquals(new Set(listed).size, listed.length);
  const root = new URL(".", import.meta.url).pathname;
  assertEquals([...listed].sort(), await domainsOf(root));
});

Deno.test("domains: a face's name is its folder's", async () => {
  for (const domain of DOMAINS) {
    const face = await import(`./${domain.name}/mod.ts`);
    assertEquals(face[domain.name], domain, `src/${domain.name}/mod.ts`);
  }
});
