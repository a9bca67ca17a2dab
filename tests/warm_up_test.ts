/**
 * Issue 26: the request path is warmed before `/ready` says 200, and nobody can tell: the warm-up's
 * requests are not in `/metrics`, they leave no session, user or rate-window row, and a client's
 * first request answers as on any process.
 */
import { startTestServer } from "./helpers/server.ts";
import { assert, assertEquals } from "./helpers/assert.ts";
import { AccessTokens } from "../src/domains/accounts/access_tokens.ts";
import { warmRequestPath } from "../src/warm_up.ts";

Deno.test({
  name: "warm-up: a started server's /metrics counts no request of its warm-up",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const server = await startTestServer();
    try {
      const metrics = await fetch(`${server.url}/metrics`);
      assertEquals(metrics.status, 200);
      const text = await metrics.text();
      assert.ok(!/route="\/api\/devices\/\{id\}\/push"/.test(text), "device push path counted");
      assert.ok(!/route="\/auth\/me"/.test(text), "/auth/me counted");
      assert.ok(!/route="\/health"/.test(text), "/health counted");
      assert.ok(!/route="\/api\/display"/.test(text), "/api/display counted");
      // The warm-up's tokens name no session: a client's own request is refused as usual.
      const me = await fetch(`${server.url}/auth/me`, {
        headers: { authorization: "Bearer not-a-token" },
      });
      await me.body?.cancel();
      assertEquals(me.status, 401);
    } finally {
      await server.shutdown();
    }
  },
});

Deno.test("warm-up: every request goes through the handler, refusals and failures included", async () => {
  const seen = new Map<string, number>();
  let calls = 0;
  const handler = (req: Request) => {
    calls++;
    const path = new URL(req.url).pathname.replace(/[0-9a-f-]{36}/, "{id}");
    seen.set(path, (seen.get(path) ?? 0) + 1);
    // A handler that throws does not stop the warm-up.
    if (calls % 7 === 0) throw new Error("boom");
    return new Response(null, { status: path === "/health" ? 200 : 401 });
  };
  const tokens = new AccessTokens("warm-up-test-secret-warm-up-test-secret-0123", 60);
  await warmRequestPath(handler, tokens, 90);
  assertEquals(calls, 90);
  assertEquals([...seen.keys()].sort(), [
    "/api/devices/{id}/push",
    "/api/display",
    "/auth/me",
    "/health",
  ]);
});
