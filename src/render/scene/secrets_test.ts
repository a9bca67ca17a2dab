import { assertEquals } from "../../../tests/helpers/assert.ts";
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
