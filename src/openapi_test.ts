// deno-lint-ignore-file no-explicit-any -- the documents are walked as plain JSON
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import type { Audience } from "./infra/openapi/document.ts";
import { COMMITTED, renderOpenApi } from "./openapi.ts";

const AUDIENCES: Audience[] = ["user", "factory"];

for (const audience of AUDIENCES) {
  const file = COMMITTED[audience].pathname.split("/").slice(-2).join("/");
  Deno.test(`${file} is current (run \`deno task openapi\` after changing routes)`, async () => {
    const committed = await Deno.readTextFile(COMMITTED[audience]);
    assert.ok(committed === renderOpenApi(audience), `${file} is stale: run \`deno task openapi\``);
  });
}

/** Every operation of both documents, with its path, method and document. */
function operations() {
  const out: Array<{ audience: Audience; path: string; method: string; op: any }> = [];
  for (const audience of AUDIENCES) {
    const doc = JSON.parse(renderOpenApi(audience));
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        out.push({ audience, path, method: method.toUpperCase(), op });
      }
    }
  }
  return out;
}

const PUBLIC = [
  /^\/(health|ready)$/, // liveness and readiness probes
  /^\/openapi\.json$/,
  /^\/internal\/factory\/openapi\.json$/,
  /^\/auth\/(register|login|refresh)$/,
  /^\/auth\/oauth\//, // the start, the provider's callbacks and Apple native carry their own proof
  /^\/auth\/webhook\//, // signed by the provider (SPEC 5.6)
  /^\/storage\//, // signed URLs (SPEC 5.9)
  /^\/api\/devices\/bind\/code$/, // retired: always 410
  /^\/api\/devices\/\{id\}\/refresh-code$/,
  /^(\/internal\/factory)?\/(docs|playground)(\/\{file\})?$/, // static pages; their calls carry the pasted token
  /^\/(console\/\{file\})?$/, // the owner's console and its files; its calls carry the user's token
  /^\/api\/setup$/, // a display's first call: its MAC, rate limited per address
  /^\/api\/display\/image\/\{pushId\}$/, // a display's picture: a signed URL, like /storage/
  /^\/api\/feeds\/\{token\}\.png$/, // an image feed: its secret token is the authorization
  /^\/api\/custom_plugins\/\{uuid\}$/, // a plugin's webhook inbox: its uuid is the credential
  /^\/metrics$/, // its own optional METRICS_TOKEN, not a user credential (docs/decisions.md)
  /^\/api\/custom_plugins\/\{uuid\}$/, // a plugin's webhook inbox: its uuid is the credential
];

/** CONTRACT.md "Who may call what", as the schemes each path's operations must list. */
function expectedSchemes(path: string): string[] {
  if (PUBLIC.some((p) => p.test(path))) return [];
  if (path.startsWith("/internal/factory/")) return ["factoryToken"];
  if (path.startsWith("/api/sdk/v1/")) return ["personalAccessToken"];
  if (path === "/api/display" || path === "/api/log") return ["displayAccessToken"];
  if (path.startsWith("/api/app/v1/")) return ["userAccessToken"];
  // PAT management and /auth/* stay with an interactive login (SPEC 4.3).
  if (path.startsWith("/auth/") || path.startsWith("/api/personal-access-tokens")) {
    return ["userAccessToken"];
  }
  if (path.startsWith("/api/")) return ["userAccessToken", "personalAccessToken"];
  // The MCP server: a PAT or a user access token (CONTRACT.md "Integrations").
  if (path === "/mcp") return ["userAccessToken", "personalAccessToken"];
  throw new Error(`no rule for ${path}: add it to this test with CONTRACT.md's answer`);
}

Deno.test("every operation lists exactly the credentials CONTRACT.md accepts for its path", () => {
  for (const { path, method, op } of operations()) {
    const schemes = (op.security as Record<string, string[]>[]).flatMap((s) => Object.keys(s));
    assertEquals(schemes, expectedSchemes(path), `${method} ${path}`);
    if (schemes.length) assert.ok(op.responses["401"], `${method} ${path} lacks its 401`);
  }
});

Deno.test("operations have ids, summaries and defined tags; ids are unique", () => {
  const ids = new Set<string>();
  for (const audience of AUDIENCES) {
    const doc = JSON.parse(renderOpenApi(audience));
    const tags = new Set(doc.tags.map((t: { name: string }) => t.name));
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        assert.ok(op.operationId && !ids.has(op.operationId), `${method} ${path}: operationId`);
        ids.add(op.operationId);
        assert.ok(op.summary && op.description, `${method} ${path}: summary and description`);
        for (const tag of op.tags) assert.ok(tags.has(tag), `${method} ${path}: tag ${tag}`);
        for (const match of path.matchAll(/\{(\w+)\}/g)) {
          assert.ok(
            op.parameters?.some((p: any) => p.in === "path" && p.name === match[1]),
            `${method} ${path}: path parameter ${match[1]} is not declared`,
          );
        }
      }
    }
  }
});

Deno.test("every error response is the envelope of its surface", () => {
  for (const { path, method, op } of operations()) {
    const envelope = /^\/api\/(sdk|app)\/v1\//.test(path) ? "VersionedError" : "Error";
    for (const [status, response] of Object.entries<any>(op.responses)) {
      if (Number(status) < 400) continue;
      assertEquals(
        response.content?.["application/json"]?.schema,
        { $ref: `#/components/schemas/${envelope}` },
        `${method} ${path} ${status}`,
      );
    }
    assert.ok(op.responses["500"], `${method} ${path} lacks its 500`);
  }
});

Deno.test("success statuses are the live ones (SPEC 4.1, 4.3, 4.8)", () => {
  const success = new Map(
    operations().map(({ path, method, op }) => [
      `${method} ${path}`,
      Object.keys(op.responses).filter((s) => Number(s) < 400),
    ]),
  );
  assertEquals(success.get("POST /auth/register"), ["201"]);
  assertEquals(success.get("POST /api/personal-access-tokens"), ["201"]);
  assertEquals(success.get("DELETE /api/personal-access-tokens/{id}"), ["204"]);
  assertEquals(success.get("POST /api/devices/bind/code"), []);
  assertEquals(success.get("POST /internal/factory/batches"), ["201"]);
  assertEquals(success.get("POST /internal/factory/devices"), ["200", "201"]);
  assertEquals(success.get("POST /internal/factory/devices/{deviceId}/nfc-files"), ["201"]);
  assertEquals(
    success.get("POST /internal/factory/nfc-files/{credentialId}/download-requests"),
    ["201"],
  );
  assertEquals(success.get("GET /auth/oauth/google"), ["302"]);
});
