/** The HTTP layer (issue 2 skeleton): health, envelopes, request ids, CORS, limits, renewal, logs. */
import { createTRPCClient, httpLink } from "@trpc/client";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { startTestServer } from "./helpers/server.ts";
import type { AppRouter } from "../src/router.ts";

const suite = serverSuite("http", { CORS_ORIGINS: "http://portal.test,http://localhost:3000" });

suite.test("GET /health is 200 {status: ok} without authentication", async (api) => {
  const reply = await api.get("/health");
  assertEquals(expectStatus(reply, 200), { status: "ok" });
});

suite.test("GET /ready is 200 once every component of the process is usable", async (api) => {
  const reply = await api.get("/ready");
  assertEquals(expectStatus(reply, 200), {
    status: "ready",
    checks: { database: "ok", migrations: "ok", render: "ok", broker: "ok" },
  });
  assert.equal(reply.headers.get("cache-control"), "no-store");
});

suite.test("unknown paths are 404 with the error body; wrong methods 405 with Allow", async (api) => {
  expectError(await api.get("/nope"), 404);
  expectError(await api.get("/api/unknown/thing"), 404);
  const wrong = await api.get("/auth/login");
  expectError(wrong, 405);
  assert.equal(wrong.headers.get("allow"), "POST");
});

suite.test("a literal path segment wins over a parameter: GET /api/devices/claim is 405, not a bad id", async (api) => {
  // It was 400 "id: must be a UUID" from GET /api/devices/{id} (issue 34).
  const claim = await api.get("/api/devices/claim");
  assertEquals(expectStatus(claim, 405), { error: "Method GET is not allowed here" });
  assert.equal(claim.headers.get("allow"), "POST");
  const settings = await api.delete("/api/webhooks/settings");
  expectError(settings, 405);
  assertEquals(settings.headers.get("allow")?.split(", ").sort(), ["GET", "PUT"]);
  const refresh = await api.get(`/api/devices/${crypto.randomUUID()}/push/refresh`);
  expectError(refresh, 405);
  assert.equal(refresh.headers.get("allow"), "POST");
  // A parameter still matches what no literal names.
  expectError(await api.get(`/api/devices/${crypto.randomUUID()}`), 401);
});

suite.test("every response carries an X-Request-Id; a sane client id is kept", async (api) => {
  for (
    const reply of [await api.get("/health"), await api.get("/nope"), await api.get("/auth/me")]
  ) {
    assert.ok(reply.headers.get("x-request-id"));
  }
  const kept = await api.get("/health", { headers: { "x-request-id": "client-chosen-id-1" } });
  assert.equal(kept.headers.get("x-request-id"), "client-chosen-id-1");
  const replaced = await api.get("/health", { headers: { "x-request-id": "bad id with spaces" } });
  assert.notEqual(replaced.headers.get("x-request-id"), "bad id with spaces");
});

suite.test("SDK errors use {error: {code, message, requestId}}", async (api) => {
  const reply = await api.get("/api/sdk/v1/me");
  const body = expectStatus(reply, 401);
  assertEquals(Object.keys(body), ["error"]);
  assert.equal(body.error.code, "unauthorized");
  assert.equal(typeof body.error.message, "string");
  assert.equal(body.error.requestId, reply.headers.get("x-request-id"));
  const missing = expectStatus(await api.get("/api/sdk/v1/nothing-here"), 404);
  assert.equal(missing.error.code, "not_found");
});

suite.test("CORS: allowed origins get headers and X-Renewed-Token is exposed", async (api) => {
  const failed = await api.put("/auth/me", { headers: { origin: "http://portal.test" } });
  assert.equal(failed.headers.get("access-control-allow-origin"), "http://portal.test");
  const reply = await api.get("/health", { headers: { origin: "http://portal.test" } });
  assert.equal(reply.headers.get("access-control-allow-origin"), "http://portal.test");
  assert.match(reply.headers.get("access-control-expose-headers") ?? "", /X-Renewed-Token/);
  const foreign = await api.get("/health", { headers: { origin: "http://evil.test" } });
  assert.equal(foreign.headers.get("access-control-allow-origin"), null);
});

suite.test(
  "CORS preflight answers 204 with methods and headers for allowed origins",
  async (_api, server) => {
    const res = await fetch(`${server.url}/auth/me`, {
      method: "OPTIONS",
      headers: { origin: "http://localhost:3000", "access-control-request-method": "PUT" },
    });
    await res.body?.cancel();
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "http://localhost:3000");
    assert.match(res.headers.get("access-control-allow-headers") ?? "", /Authorization/);
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /DELETE/);
  },
);

suite.test("JSON bodies over 1 MiB are 413; non-JSON bodies 400", async (api) => {
  const big = JSON.stringify({ email: "a".repeat(1024 * 1024), username: "x", password: "y" });
  expectError(
    await api.post("/auth/register", { raw: big, headers: { "content-type": "application/json" } }),
    413,
  );
  expectError(
    await api.post("/auth/login", {
      raw: "identifier=a",
      headers: { "content-type": "text/plain" },
    }),
    400,
  );
});

suite.test("user tokens with over 24 h left get no X-Renewed-Token", async (api) => {
  const user = await registerUser(api);
  const reply = await api.get("/auth/me", { token: user.accessToken });
  assert.equal(reply.headers.get("x-renewed-token"), null);
});

suite.test("GET /openapi.json serves the document with the spec's paths", async (api) => {
  const doc = expectStatus(await api.get("/openapi.json"), 200);
  assert.equal(doc.openapi.startsWith("3."), true);
  for (
    const path of ["/auth/register", "/auth/account", "/api/personal-access-tokens/{id}", "/health"]
  ) {
    assert.ok(doc.paths[path], `missing ${path}`);
  }
});

suite.test("tRPC at /trpc serves typed clients with the same procedures", async (_api, server) => {
  const api = client(server.url);
  const user = await registerUser(api);
  const trpc = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${server.url}/trpc`,
        headers: { authorization: `Bearer ${user.accessToken}` },
      }),
    ],
  });
  const me = await trpc.accounts.getMe.query();
  assert.equal(me.id, user.user.id);
  const sessions = await trpc.accounts.listSessions.query();
  assert.equal(sessions.length, 1);
});

suite.test(
  "logs are one JSON line per request with the path template and no token",
  async (api, server) => {
    const user = await registerUser(api);
    const lines: string[] = [];
    const original = console.log;
    const logger = server.app.logger;
    const restoreLevel = logger.request;
    // The suite runs silent; route request logs through a capturing console for this call.
    const { createLogger } = await import("../src/infra/http/log.ts");
    const loud = createLogger("info");
    logger.request = loud.request;
    console.log = (line: string) => lines.push(line);
    try {
      await api.delete("/auth/sessions/0190a8f2-0000-7000-8000-000000000000", {
        token: user.accessToken,
      });
    } finally {
      console.log = original;
      logger.request = restoreLevel;
    }
    assert.equal(lines.length, 1);
    const entry = JSON.parse(lines[0]);
    assert.equal(entry.method, "DELETE");
    assert.equal(entry.path, "/auth/sessions/{id}");
    assert.equal(entry.status, 404);
    assert.equal(typeof entry.ms, "number");
    assert.ok(entry.requestId);
    assert.equal(lines[0].includes(user.accessToken), false);
  },
);

suite.end();

Deno.test({
  name: "http: tokens with under 24 h left are renewed on every authenticated response",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const server = await startTestServer({ ACCESS_TOKEN_EXPIRY: "23h" });
    try {
      const api = client(server.url);
      const user = await registerUser(api);
      const ok = await api.get("/auth/me", { token: user.accessToken });
      expectStatus(ok, 200);
      const renewed = ok.headers.get("x-renewed-token");
      assert.ok(renewed);
      expectStatus(await api.get("/auth/me", { token: renewed }), 200);
      // Error responses after authentication carry it too.
      const notFound = await api.delete("/auth/sessions/0190a8f2-0000-7000-8000-000000000000", {
        token: user.accessToken,
      });
      expectError(notFound, 404);
      assert.ok(notFound.headers.get("x-renewed-token"));
      const pat = expectStatus(
        await api.post("/api/personal-access-tokens", {
          token: user.accessToken,
          body: { name: "p" },
        }),
        201,
      );
      assert.equal(
        (await api.get("/api/sdk/v1/me", { token: pat.token })).headers.get("x-renewed-token"),
        null,
      );
    } finally {
      await server.close();
    }
  },
});
