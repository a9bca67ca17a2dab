/**
 * SPEC 2.11 rule 7: a Scene never contains PATs, access tokens, presigned upload policies,
 * private object keys or permanent third-party credentials. Scenes are returned to API clients,
 * cached by widgets and shown to anyone who sees the picture, so a Scene carrying one is refused
 * before it is stored. Every key and string of the document is scanned, unknown properties
 * included (rule 6 keeps those in storage).
 */

/** A kind of secret and how it is recognised in normalised text (see `normaliseForScan`). */
interface Pattern {
  kind: string;
  test: (text: string) => boolean;
}

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/**
 * Not after an ASCII letter or digit: for the prefixes that also occur inside ordinary words
 * (`rt_` in `start_`, `sk_test_` in `task_test_`, `Asia`, `bearer`). `_`, `-`, punctuation and
 * other scripts before them still count, so `x_` glued to a token hides nothing. Every other
 * kind is found anywhere, inside a longer word included.
 */
const AFTER = "(?<![A-Za-z0-9])";

/**
 * Each expression starts with a literal (or a fixed-width look-behind and a literal) and has
 * only bounded quantifiers after it, so a failed attempt at one position costs a constant number
 * of steps and a scan is linear in the text: no unbounded `\S*`, `[…]*` or `{n,}` that a run of
 * hostile characters could make backtrack. `i`: a token in another case is still the token.
 */
function matcher(source: string): (text: string) => boolean {
  const expression = new RegExp(source, "i");
  return (text) => expression.test(text);
}

const PATTERNS: Pattern[] = [
  // docs/decisions.md: PATs are `pat_` + 40 base62, refresh tokens `rt_` + base64url (43).
  { kind: "a personal access token", test: matcher("pat[_\\-.: ][a-z0-9]{40}") },
  { kind: "a refresh token", test: matcher(`${AFTER}rt[_\\-.:][a-z0-9_-]{40}`) },
  // A JWT (access tokens, id tokens): base64url JSON header and payload, both starting `{"`.
  { kind: "an access token", test: hasJwt },
  { kind: "a bearer credential", test: matcher(`${AFTER}bearer[ :=][a-z0-9._~+/-]{20}`) },
  // PEM headers: `-----BEGIN [RSA |EC |OPENSSH |ENCRYPTED ]PRIVATE KEY-----`, in any case.
  {
    kind: "a private key",
    test: matcher("--begin[ _-](?:[a-z0-9]+[ _-]){0,4}private[ _-]?key"),
  },
  // Presigned URLs: S3 query signing, and the embedded store's `signature=` query; a relative
  // URL (no scheme) is as much a signed link.
  {
    kind: "a presigned URL",
    test: matcher(
      "[?&](?:x[-_]amz[-_](?:signature|credential|security[-_]token)|signature|sig" +
        "|awsaccesskeyid|googleaccessid)=",
    ),
  },
  // Object keys of the store (`render/<userId>/…`, `uploads/<userId>/…`, `files/<userId>/…`,
  // `renditions/<userId>/…`): Scenes hold file ids. Only those prefixes: a web address with a
  // UUID in its path (`/items/<uuid>/edit`) is not a key of ours.
  { kind: "a private object key", test: matcher(`(?:render|uploads|files|renditions)/${UUID}/`) },
  { kind: "a Stripe secret key", test: matcher(`${AFTER}[sr]k[_-](?:live|test)[_-][a-z0-9]{10}`) },
  { kind: "a Stripe webhook secret", test: matcher("whsec[_-][a-z0-9+/=]{10}") },
  { kind: "an Anthropic API key", test: matcher("sk-ant-[a-z0-9_-]{10}") },
  { kind: "an AWS access key", test: matcher(`${AFTER}(?:akia|asia)[a-z0-9]{16}(?![a-z0-9])`) },
  {
    kind: "a GitHub token",
    test: matcher("gh[pousr]_[a-z0-9]{36}|github_pat_[a-z0-9_]{40}"),
  },
  { kind: "a Google API key", test: matcher(`${AFTER}aiza[0-9a-z_-]{35}`) },
  { kind: "a Slack token", test: matcher("xox[abprs]-[a-z0-9-]{10}") },
];

/**
 * A JWT: a base64url run holding `eyJ` and at least 8 characters after it, a dot, a run
 * starting `eyJ` (at least 11 long), a dot. Found by one pass over the base64url runs of the
 * text rather than a regular expression: `eyJ[…]{8,}\.` backtracks over every run of `eyJeyJ…`.
 */
function hasJwt(text: string): boolean {
  const runs = /[A-Za-z0-9_-]+/g;
  let previous: { end: number; header: boolean } | undefined;
  for (let match = runs.exec(text); match; match = runs.exec(text)) {
    const run = match[0].toLowerCase();
    const start = match.index;
    const end = start + run.length;
    if (
      previous?.header && previous.end + 1 === start && text[previous.end] === "." &&
      run.startsWith("eyj") && run.length >= 11 && text[end] === "."
    ) return true;
    const at = run.indexOf("eyj");
    previous = { end, header: at >= 0 && run.length - at - 3 >= 8 };
  }
  return false;
}

/** Characters that show nothing: a token with them inside reads as the token. */
const INVISIBLE =
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/g;

/** Fullwidth `！` to `～`: the same characters as ASCII `!` to `~`, 0xfee0 further on. */
const FULLWIDTH = /[\uff01-\uff5e]/g;

/** Where a token's parts join: whitespace next to one of these is dropped. */
const JOINERS = new Set([".", "_", "-", ":", "/", "=", "&", "?"]);

/**
 * The text as the patterns see it: fullwidth forms folded to ASCII (`ｐａｔ＿` is `pat_`),
 * invisible characters removed, every run of whitespace one space, and no whitespace next to a
 * joiner (`eyJ… . eyJ… . sig` is a JWT, `----- BEGIN` a PEM header). Never longer than the text
 * (NFKC is not used: one character can become 18) and one pass each; case is left to the
 * patterns (`i`), so a token's own alphabet is kept.
 */
export function normaliseForScan(text: string): string {
  const folded = text.replace(INVISIBLE, "").replace(
    FULLWIDTH,
    (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0),
  );
  // `\s+` with `g` takes each run whole and goes on after it: one pass, no backtracking.
  return folded.replace(/\s+/g, (run, at: number) => {
    const before = folded[at - 1];
    const after = folded[at + run.length];
    return JOINERS.has(before) || JOINERS.has(after) ? "" : " ";
  });
}

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
  const normalised = normaliseForScan(text);
  return PATTERNS.find((p) => p.test(normalised))?.kind;
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
