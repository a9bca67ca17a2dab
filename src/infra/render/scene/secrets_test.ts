import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import { randomString } from "../../lib/crypto.ts";
import { findSecret } from "./secrets.ts";

const JWT =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwic2lkIjoiYWJjIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

Deno.test("secrets: every kind rule 7 names is found, with where it sits", () => {
  const cases: [unknown, string, string][] = [
    [{ text: `token pat_${"a1B2".repeat(10)} here` }, "text", "a personal access token"],
    [{ a: [{ b: JWT }] }, "a[0].b", "an access token"],
    [{ h: `Bearer ${"x".repeat(30)}` }, "h", "a bearer credential"],
    [{ k: "rt_" + "A".repeat(43) }, "k", "a refresh token"],
    [{ pem: "-----BEGIN RSA PRIVATE KEY-----\nMIIE..." }, "pem", "a private key"],
    [{ pem: "-----BEGIN PRIVATE KEY-----" }, "pem", "a private key"],
    [
      { u: "https://bucket.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&X-Amz-Signature=abc" },
      "u",
      "a presigned URL",
    ],
    [
      { u: "http://localhost:8080/storage/objects/a?expires=1&signature=xyz" },
      "u",
      "a presigned URL",
    ],
    [
      { fields: { key: "k", policy: "eyJ...", signature: "s" } },
      "fields",
      "a presigned upload policy",
    ],
    [{ f: { Policy: "p", "X-Amz-Signature": "s" } }, "f", "a presigned upload policy"],
    [
      { k: "render/0193b3a0-1c2d-7e4f-8a9b-0c1d2e3f4a5b/dev/push/image.png" },
      "k",
      "a private object key",
    ],
    [{ s: "sk_live_" + "a".repeat(24) }, "s", "a Stripe secret key"],
    [{ s: "whsec_" + "a".repeat(32) }, "s", "a Stripe webhook secret"],
    [{ s: "sk-ant-api03-" + "a".repeat(40) }, "s", "an Anthropic API key"],
    [{ s: "AKIAIOSFODNN7EXAMPLE" }, "s", "an AWS access key"],
    [{ s: "ghp_" + "a".repeat(36) }, "s", "a GitHub token"],
    [{ apiKey: "anything at all" }, "apiKey", "a credential (apiKey)"],
    [{ client_secret: "x" }, "client_secret", "a credential (client_secret)"],
    [{ a: { [`pat_${"z".repeat(40)}`]: 1 } }, "a", "a personal access token as a property name"],
  ];
  for (const [value, path, kind] of cases) assertEquals(findSecret(value), { path, kind });
});

Deno.test("secrets: ordinary content is not mistaken for a secret", () => {
  const fine = {
    text: "Pattern_ matching, eyJ is a prefix, the policy of the club, Bearer of good news",
    url: "https://example.com/page?sort=asc&page=2",
    policy: { text: "no signature here" },
    password: "",
    fileId: "0193b3a0-1c2d-7e4f-8a9b-0c1d2e3f4a5b",
    path: "notes/2025/todo.md",
    n: 5,
    nested: [[{ ok: true }]],
  };
  assertEquals(findSecret(fine), undefined);
});

Deno.test("secrets: nesting beyond the depth limit is refused rather than half scanned", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 40; i++) deep = { d: deep };
  assertEquals(findSecret(deep, 32)?.kind, "nesting too deep to check");
  assertEquals(findSecret(deep, 64), undefined);
});

// Issue 25, finding 6: tokens glued to other text, in another case, or with spaced separators.
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const PAT = `pat_${randomString(40, BASE62)}`; // the live format (src/domains/pats/service.ts)
const [HEADER, PAYLOAD, SIGNATURE] = JWT.split(".");

Deno.test("secrets: a token glued to other text, in another case or spaced out is found", () => {
  const cases: [string, string][] = [
    // The reviewer's three reproductions.
    ["x_" + PAT, "a personal access token"],
    ["-----begin private key-----\nMIIE", "a private key"],
    [`${HEADER} . ${PAYLOAD} . ${SIGNATURE}`, "an access token"],
    // Glued on either side, inside a word included.
    [`token:${PAT}.`, "a personal access token"],
    [`xyz${PAT}abc`, "a personal access token"],
    [`see(${PAT})`, "a personal access token"],
    [`x_${JWT}`, "an access token"],
    [`prefix${JWT}suffix`, "an access token"],
    [`x_rt_${"Ab9-".repeat(11)}`, "a refresh token"],
    [`x_sk_live_${"a1".repeat(12)}`, "a Stripe secret key"],
    [`key=xoxb-${"1234-".repeat(4)}`, "a Slack token"],
    [`id_AKIAIOSFODNN7EXAMPLE`, "an AWS access key"],
    // Case.
    [PAT.replace("pat_", "PAT_"), "a personal access token"],
    [PAT.toLowerCase(), "a personal access token"],
    ["-----Begin Rsa Private Key-----", "a private key"],
    ["-----BEGIN OPENSSH PRIVATE KEY-----", "a private key"],
    [`authorization: bearer ${"z".repeat(30)}`, "a bearer credential"],
    [`BEARER ${"Z9".repeat(15)}`, "a bearer credential"],
    ["SK_LIVE_" + "A1".repeat(12), "a Stripe secret key"],
    ["akiaiosfodnn7example", "an AWS access key"],
    [`GHP_${"a".repeat(36)}`, "a GitHub token"],
    // Separators: spaces and line breaks around them, other joiners, invisible characters.
    [`${HEADER}\n.\n${PAYLOAD}\n.\n${SIGNATURE}`, "an access token"],
    [`${HEADER}.${PAYLOAD}.`, "an access token"],
    [PAT.replace("_", " _ "), "a personal access token"],
    [PAT.replace("_", "-"), "a personal access token"],
    [PAT.replace("_", "\u200b_\u200b"), "a personal access token"],
    [`pa\u00adt_${PAT.slice(4)}`, "a personal access token"],
    // Fullwidth forms fold to ASCII.
    [`ｐａｔ＿${PAT.slice(4)}`, "a personal access token"],
    ["----- BEGIN   EC\nPRIVATE KEY -----", "a private key"],
    ["-----BEGIN_PRIVATE_KEY-----", "a private key"],
    ["https://b.s3.amazonaws.com/k?X-Amz-Credential=a&X_AMZ_SIGNATURE=abc", "a presigned URL"],
    ["/storage/objects/a?expires=1 & signature = xyz", "a presigned URL"],
    ["RENDER / 0193B3A0-1C2D-7E4F-8A9B-0C1D2E3F4A5B / d", "a private object key"],
    ["x_files/0193b3a0-1c2d-7e4f-8a9b-0c1d2e3f4a5b/a/b", "a private object key"],
  ];
  for (const [text, kind] of cases) {
    assertEquals(findSecret({ text }), { path: "text", kind }, text);
  }
});

Deno.test("secrets: prose, ids, colours and addresses are not mistaken for secrets", () => {
  const fine = [
    "The quick brown fox jumps over the lazy dog. Pat went home at 10:30 - then slept.",
    "Before we begin, the private key ceremony is at noon; bring your badge.",
    "The bearer of good news arrived: well-to-do, kind and patient.",
    "Pattern_ matching, eyJ is a prefix, the policy of the club, signature required.",
    "Asia and Slovakia; the AKIA prefix; sk_live alone; rt_ alone; whsec; xoxb.",
    "start_of_a_very_long_snake_case_identifier_that_goes_on_and_on_forever",
    "task_test_validation_suite_with_more_words_after_it_for_good_measure",
    "desk_live_streaming2024 and compatibility_matrix_for_all_platforms",
    "0193b3a0-1c2d-7e4f-8a9b-0c1d2e3f4a5b",
    "0193B3A0-1C2D-7E4F-8A9B-0C1D2E3F4A5B and 550e8400-e29b-41d4-a716-446655440000",
    "#000000 #fff #1a2B3c #FFAA0080 rgb(10, 20, 30)",
    "https://example.com/page?sort=asc&page=2#top",
    "https://example.com/items/0193b3a0-1c2d-7e4f-8a9b-0c1d2e3f4a5b/edit?tab=files",
    "http://localhost:8080/api/raw-items?limit=20&cursor=abc",
    "mailto:someone@example.com, ftp://files.example.org/pub/readme.txt",
    "git 3f786850e387550fdab836ed7e6dc881de23001b; sha256 " + "ab12".repeat(16),
    "notes/2025/todo.md and C:\\Users\\pat\\Documents\\report.docx",
    "今日は晴れです。Ünïcödé text — with dashes – and “quotes”.",
    "e.g. i.e. a.b.c. 1.2.3 v2.0.0-beta.1 eyJhbGciOi",
  ];
  for (const text of fine) assertEquals(findSecret({ text }), undefined, text);
  // A 200 KB base64 blob (standard alphabet) holds no token.
  let seed = 7;
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const blob = Array.from({ length: 200_000 }, () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return B64[seed % 64];
  }).join("");
  assertEquals(findSecret({ blob }), undefined);
});

Deno.test("secrets: the check is linear in the text (hostile inputs of a full body)", () => {
  const n = 1_000_000;
  const hostile: [string, string][] = [
    ["spaces", " ".repeat(n)],
    ["spaces before a letter", " ".repeat(n) + "a"],
    ["dashes", "-".repeat(n)],
    ["letters", "a".repeat(n)],
    ["pat_ repeated", "pat_".repeat(n / 4)],
    ["eyJ repeated", "eyJ".repeat(n / 3)],
    ["eyJ runs and dots, one short of a JWT", `eyJ${"a".repeat(7)}.`.repeat(n / 11)],
    ["http:// repeated (was quadratic)", "http://".repeat(n / 7)],
    ["path segment before a UUID (was quadratic)", "a".repeat(n) + "/x"],
    ["--begin repeated", "--begin ".repeat(n / 8)],
    ["--begin and a long word", "--begin " + "a".repeat(n)],
    ["bearer repeated", "bearer ".repeat(n / 7)],
    ["rt_ and one short of a body", ` rt_${"a".repeat(39)}!`.repeat(n / 44)],
    ["?sig repeated", "?sig&sig".repeat(n / 8)],
    ["files/ repeated", "files/".repeat(n / 6)],
    ["spaced joiners", " . ".repeat(n / 3)],
    ["invisible characters", "\u200b".repeat(n)],
  ];
  for (const [name, text] of hostile) {
    const started = performance.now();
    assertEquals(findSecret({ text }), undefined, name);
    const ms = performance.now() - started;
    assert.ok(ms < 1000, `${name}: ${ms.toFixed(0)} ms`);
  }
});
