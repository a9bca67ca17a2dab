/**
 * The documents' tags. A face declares the tags of its operations with their descriptions
 * (`tags` in `defineDomain`); the infrastructure's own are here. An operation whose tag nobody
 * declares fails document generation.
 */
export const INFRASTRUCTURE_TAGS: Readonly<Record<string, string>> = {
  app: "The versioned surface of the owner's apps, for user access tokens (SPEC 4.7)",
  sdk: "The versioned surface of SDK scripts, for personal access tokens (SPEC 4.7)",
  system: "Liveness, this document and the operators' metrics",
  pages: "Pages for people in a browser: this API reference and the render playground",
};

/**
 * The order the documents list their tags in (SPEC's order). A declared tag not named here is
 * listed after these, in the order of `src/domains.ts`: a new domain need not add its tag here.
 */
export const TAG_ORDER: readonly string[] = [
  "accounts",
  "identity-providers",
  "personal-access-tokens",
  "billing",
  "devices",
  "displays",
  "pushes",
  "content",
  "analyze",
  "templates",
  "webhooks",
  "app",
  "sdk",
  "integrations",
  "storage",
  "system",
  "pages",
  "factory",
];

/**
 * Every tag with its description, in display order: the infrastructure's and `declared` (the
 * faces', in list order). A tag declared twice is a mistake and stops the build.
 */
export function documentTags(
  declared: readonly Readonly<Record<string, string>>[],
): [string, string][] {
  const all = new Map(Object.entries(INFRASTRUCTURE_TAGS));
  for (const tags of declared) {
    for (const [name, description] of Object.entries(tags)) {
      if (all.has(name)) throw new Error(`tag "${name}" is declared twice`);
      all.set(name, description);
    }
  }
  const rank = (name: string) => {
    const at = TAG_ORDER.indexOf(name);
    return at === -1 ? TAG_ORDER.length : at;
  };
  // A stable sort: unranked tags keep their declaration order.
  return [...all].sort(([a], [b]) => rank(a) - rank(b));
}
