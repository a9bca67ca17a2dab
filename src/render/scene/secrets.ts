/**
 * SPEC 2.11 rule 7: a Scene never contains PATs, access tokens, presigned upload policies,
 * private object keys or permanent third-party credentials. Scenes are returned to API clients,
 * cached by widgets and shown to anyone who sees the picture, so a Scene carrying one is refused
 * before it is stored. Every key and string of the document is scanned, unknown properties
 * included (rule 6 keeps those in storage).
 */

/** A kind of secret and how it is recognised in a string. */
interface Pattern {
  kind: string;
  test: RegExp;
}

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

const PATTERNS: Pattern[] = [
  // docs/decisions.md: PATs are `pat_` + 40 base62, refresh tokens `rt_` + base64url.
  { kind: "a personal access token", test: /\bpat_[A-Za-z0-9]{40}\b/ },
  { kind: "a refresh token", test: /\brt_[A-Za-z0-9_-]{40,}/ },
  // A JWT (access tokens, id tokens): base64url JSON header and payload, both starting `{"`.
  { kind: "an access token", test: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/ },
  { kind: "a bearer credential", test: /\bBearer\s+[A-Za-z0-9._~+\/-]{20,}=*/i },
  { kind: "a private key", test: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/ },
  // Presigned URLs: S3 query signing, and the embedded store's `signature=` query.
  {
    kind: "a presigned URL",
    test: /https?:\/\/\S*[?&](x-amz-signature|x-amz-credential|signature|sig|awsaccesskeyid)=/i,
  },
  // Object keys of the store (`render/<userId>/…`, `uploads/<userId>/…`): Scenes hold file ids.
  { kind: "a private object key", test: new RegExp(`\\b[a-z][a-z0-9_-]*/${UUID}/`, "i") },
  { kind: "a Stripe secret key", test: /\b(sk|rk)_(live|test)_[A-Za-z0-9]{10,}/ },
  { kind: "a Stripe webhook secret", test: /\bwhsec_[A-Za-z0-9+\/=]{10,}/ },
  { kind: "an Anthropic API key", test: /\bsk-ant-[A-Za-z0-9_-]{10,}/ },
  { kind: "an AWS access key", test: /\b(AKIA|ASIA)[A-Z0-9]{16}\b/ },
  { kind: "a GitHub token", test: /\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})/ },
  { kind: "a Google API key", test: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { kind: "a Slack token", test: /\bxox[abprs]-[A-Za-z0-9-]{10,}/ },
];

/**
 * Property names that only ever hold a credential. A non-empty string under one of them is
 * refused whatever it looks like.
 */
const SECRET_NAMES = new Set([
  "password",
  "passwd",
  "secret",
  "clientsecret",
  "apikey",
  "apisecret",
  "accesstoken",
  "refreshtoken",
  "idtoken",
  "authtoken",
  "privatekey",
  "authorization",
  "credential",
  "credentials",
  "xamzsignature",
  "xamzcredential",
  "sessiontoken",
]);

/** A presigned POST ticket's fields: a policy next to its signature (S3 or the embedded store). */
function isPresignedPolicy(keys: string[]): boolean {
  const names = new Set(keys.map((key) => key.toLowerCase().replace(/[^a-z]/g, "")));
  return names.has("policy") && (names.has("signature") || names.has("xamzsignature"));
}

/** Where a secret was found and what it looks like (never the secret itself). */
export interface SecretFinding {
  path: string;
  kind: string;
}

function kindOf(text: string): string | undefined {
  return PATTERNS.find((p) => p.test.test(text))?.kind;
}

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key)
    ? (path ? `${path}.${key}` : key)
    : `${path}[${JSON.stringify(key)}]`;
}

/**
 * The first secret in `value` (depth-first, document order), or undefined. `path` names where
 * it sits, e.g. `elements[2].properties.text`. Deeper than `maxDepth` counts as found too: a
 * document nested that far is refused rather than half scanned.
 */
export function findSecret(value: unknown, maxDepth = 64, path = ""): SecretFinding | undefined {
  if (typeof value === "string") {
    const kind = kindOf(value);
    return kind ? { path, kind } : undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  if (maxDepth <= 0) return { path, kind: "nesting too deep to check" };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findSecret(value[i], maxDepth - 1, join(path, i));
      if (found) return found;
    }
    return undefined;
  }
  if (isPresignedPolicy(Object.keys(value))) return { path, kind: "a presigned upload policy" };
  for (const [key, child] of Object.entries(value)) {
    const at = join(path, key);
    const keyKind = kindOf(key);
    // Named by its parent: the path must not repeat the secret it reports.
    if (keyKind) return { path, kind: `${keyKind} as a property name` };
    const name = key.toLowerCase().replace(/[^a-z]/g, "");
    if (SECRET_NAMES.has(name) && typeof child === "string" && child.trim() !== "") {
      return { path: at, kind: `a credential (${key})` };
    }
    const found = findSecret(child, maxDepth - 1, at);
    if (found) return found;
  }
  return undefined;
}
