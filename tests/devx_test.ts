/**
 * Issue 14: what developers and operators reach for, served by the service itself. The API
 * reference on each ingress (`/docs`), the render playground and its Scene preview endpoint, and
 * `/metrics` with its listener rule (factory ingress, or METRICS_TOKEN).
 */
import { assert, assertEquals, expectStatus } from "./helpers/assert.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import { serverSuite } from "./helpers/suite.ts";
import { startTestServer } from "./helpers/server.ts";
import {
  account,
  expectCode,
  hardcodePresentation,
  pngInfo,
  testPng,
} from "./helpers/targetless.ts";
import { metricsServed } from "../src/infra/metrics/route.ts";
import { MAX_PREVIEW_IMAGES } from "../src/domains/targetless/scene_preview.ts";

const suite = serverSuite("devx");

const get = (base: string, path: string, headers: Record<string, string> = {}) =>
  fetchChecked(`${base}${path}`, { headers });

/** A small valid Scene's data; `extra` elements are drawn over a white background. */
function sceneData(extra: unknown[] = []) {
  return {
    version: 1,
    viewport: { width: 120, height: 80 },
    background: "#FFFFFF",
    elements: [
      {
        id: "t",
        type: "text",
        frame: { x: 4, y: 4, width: 112, height: 30 },
        properties: { text: "Hi", fontSize: 20, color: "#000000" },
      },
      ...extra,
    ],
  };
}

const imageElement = (fileId: string) => ({
  id: "img",
  type: "image",
  frame: { x: 0, y: 40, width: 120, height: 40 },
  properties: { fileId, fit: "fill" },
});

async function preview(base: string, prefix: string, token: string | undefined, body: unknown) {
  const res = await fetchChecked(`${base}${prefix}/scenes/preview`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get("content-type"), bytes, res };
}

const errorOf = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)).error;

// ---- the API reference ----------------------------------------------------------------------

suite.test(
  "GET /docs: the reference page over /openapi.json, its scripts served locally",
  async (_api, s) => {
    const page = await get(s.url, "/docs");
    assertEquals(page.status, 200);
    assert.match(page.headers.get("content-type")!, /^text\/html/);
    const html = await page.text();
    assert.match(html, /data-spec="\/openapi\.json"/);
    // Everything from this origin: no CDN, so the page works offline.
    assert.ok(!/https?:\/\//.test(html.replace(/<a href="[^"]*"/g, "")), html);
    const csp = page.headers.get("content-security-policy")!;
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    const bundle = await get(s.url, "/docs/swagger-ui-bundle.js");
    assertEquals([bundle.status, bundle.headers.get("content-type")], [
      200,
      "text/javascript; charset=utf-8",
    ]);
    assert.ok((await bundle.arrayBuffer()).byteLength > 500_000);
    const css = await get(s.url, "/docs/swagger-ui.css");
    assertEquals([css.status, css.headers.get("content-type")], [200, "text/css; charset=utf-8"]);
    await css.body?.cancel();
  },
);

suite.test("GET /docs/{file}: only the page's own files; anything else 404", async (_api, s) => {
  for (
    const path of [
      "/docs/index.html",
      "/docs/package.json",
      "/docs/..%2Fconfig.ts",
      "/docs/swagger-ui.js.map",
    ]
  ) {
    const res = await get(s.url, path);
    assertEquals([res.status, await res.json()], [404, { error: "Not found" }], path);
  }
});

suite.test(
  "the user document lists /docs, /playground and /metrics, not the factory's page",
  async (_api, s) => {
    const doc = await (await get(s.url, "/openapi.json")).json();
    for (const path of ["/docs", "/docs/{file}", "/playground", "/playground/{file}", "/metrics"]) {
      assert.ok(doc.paths[path]?.get, path);
      assertEquals(doc.paths[path].get.security, [], path);
    }
    assert.ok(!doc.paths["/internal/factory/docs"]);
    assert.ok(doc.paths["/api/app/v1/scenes/preview"].post);
    assertEquals(doc.paths["/api/sdk/v1/scenes/preview"].post.security, [{
      personalAccessToken: [],
    }]);
  },
);

Deno.test({
  name: "devx: with FACTORY_PORT the factory's /docs is on its ingress only, over its own document",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const s = await startTestServer({ FACTORY_PORT: "0" });
    try {
      assert.notEqual(s.factoryUrl, s.url);
      const user = await get(s.url, "/internal/factory/docs");
      assertEquals(user.status, 404);
      await user.body?.cancel();
      const page = await get(s.factoryUrl, "/internal/factory/docs");
      assertEquals(page.status, 200);
      assert.match(await page.text(), /data-spec="\/internal\/factory\/openapi\.json"/);
      const asset = await get(s.factoryUrl, "/internal/factory/docs/swagger-ui-bundle.js");
      assertEquals(asset.status, 200);
      await asset.body?.cancel();
      // The user's page is not served on the factory port.
      const other = await get(s.factoryUrl, "/docs");
      assertEquals(other.status, 404);
      await other.body?.cancel();
      // Metrics: the factory port serves them, the public port does not (no METRICS_TOKEN).
      const scraped = await get(s.factoryUrl, "/metrics");
      assertEquals(scraped.status, 200);
      assert.match(
        await scraped.text(),
        /^http_requests_total\{method="GET",route="\/internal\/factory\/docs",status="200"\} 1$/m,
      );
      const hidden = await get(s.url, "/metrics");
      assertEquals([hidden.status, await hidden.json()], [404, { error: "Not found" }]);
    } finally {
      await s.close();
    }
  },
});

// ---- the playground -------------------------------------------------------------------------

suite.test(
  "GET /playground: the page, its script and the samples of every template",
  async (_api, s) => {
    const page = await get(s.url, "/playground");
    assertEquals(page.status, 200);
    assert.match(await page.text(), /<script src="\/playground\/playground\.js"><\/script>/);
    const samples = await (await get(s.url, "/playground/samples.json")).json();
    assertEquals(samples.scene.version, 1);
    assert.ok(samples.templates.length >= 8);
    assert.ok(samples.templates.find((t: { name: string }) => t.name === "note").sample.body);
    const script = await get(s.url, "/playground/playground.js");
    assertEquals(script.headers.get("content-type"), "text/javascript; charset=utf-8");
    await script.body?.cancel();
  },
);

suite.test(
  "scene preview: 200 PNG at the viewport or the size asked, on both surfaces",
  async (api, s) => {
    const acct = await account(api, "pv");
    const app = await preview(s.url, "/api/app/v1", acct.accessToken, { scene: sceneData() });
    assertEquals([app.status, app.type], [200, "image/png"]);
    assertEquals(pngInfo(app.bytes).width, 120);
    const sdk = await preview(s.url, "/api/sdk/v1", acct.pat, {
      scene: {
        mediaType: "application/vnd.service.scene+json;version=1",
        version: 1,
        data: sceneData(),
      },
      width: 60,
      height: 40,
      colorMode: "monochrome",
    });
    assertEquals([sdk.status, sdk.type], [200, "image/png"]);
    const info = pngInfo(sdk.bytes);
    assertEquals([info.width, info.height, info.bitDepth], [60, 40, 1]);
  },
);

suite.test(
  "scene preview: 400 with the normaliser's message; size and picture limits",
  async (api, s) => {
    const acct = await account(api, "pv");
    const broken = sceneData();
    delete (broken.elements[0] as { properties: Record<string, unknown> }).properties.text;
    const bad = await preview(s.url, "/api/app/v1", acct.accessToken, { scene: broken });
    assertEquals([bad.status, bad.type], [400, "application/json"]);
    assertEquals(errorOf(bad.bytes).code, "invalid_request");
    assertEquals(errorOf(bad.bytes).message, "Scene elements[0].properties.text is required");
    const huge = await preview(s.url, "/api/app/v1", acct.accessToken, {
      scene: sceneData(),
      width: 8000,
      height: 8000,
    });
    assertEquals(huge.status, 400);
    assert.match(errorOf(huge.bytes).message, /over the limit of 4000000 pixels/);
    const many = Array.from({ length: MAX_PREVIEW_IMAGES + 1 }, (_, i) => ({
      ...imageElement(crypto.randomUUID()),
      id: `img${i}`,
    }));
    const tooMany = await preview(s.url, "/api/app/v1", acct.accessToken, {
      scene: sceneData(many),
    });
    assertEquals(tooMany.status, 400);
    assert.match(errorOf(tooMany.bytes).message, /at most 16 pictures/);
    // A fileId that is no UUID names no file: drawn as nothing, never a 500.
    const odd = await preview(s.url, "/api/app/v1", acct.accessToken, {
      scene: sceneData([imageElement("not-a-uuid")]),
    });
    assertEquals(odd.status, 200);
    const envelope = await preview(s.url, "/api/app/v1", acct.accessToken, {
      scene: { mediaType: "text/plain", version: 1, data: sceneData() },
    });
    assertEquals(
      errorOf(envelope.bytes).message,
      "Scene mediaType must be application/vnd.service.scene+json;version=1",
    );
  },
);

suite.test("scene preview: each surface's credential only; none is 401", async (api, s) => {
  const acct = await account(api, "pv");
  const body = { scene: sceneData() };
  const none = await preview(s.url, "/api/app/v1", undefined, body);
  assertEquals([none.status, errorOf(none.bytes).code], [401, "unauthorized"]);
  const patOnApp = await preview(s.url, "/api/app/v1", acct.pat, body);
  assertEquals([patOnApp.status, errorOf(patOnApp.bytes).code], [403, "forbidden"]);
  const userOnSdk = await preview(s.url, "/api/sdk/v1", acct.accessToken, body);
  assertEquals([userOnSdk.status, errorOf(userOnSdk.bytes).code], [403, "forbidden"]);
  expectCode(
    await api.post("/api/app/v1/scenes/preview", { token: "pat_nope", body }),
    401,
    "unauthorized",
  );
});

suite.test(
  "scene preview: pictures come from the caller's own confirmed files only",
  async (api, s) => {
    const owner = await account(api, "pvo");
    const stranger = await account(api, "pvs");
    // A confirmed PNG of the owner (a hardcode content's asset), solid colour.
    const { content } = await hardcodePresentation(
      owner,
      owner.app,
      { preset: "default" },
      testPng(32, 16),
    );
    const fileId = content.assets[0].fileId as string;
    const withImage = { scene: sceneData([imageElement(fileId)]) };
    const blank = await preview(s.url, "/api/app/v1", owner.accessToken, { scene: sceneData() });
    const drawn = await preview(s.url, "/api/app/v1", owner.accessToken, withImage);
    assertEquals(drawn.status, 200);
    assert.notDeepEqual(drawn.bytes, blank.bytes, "the owner's picture is drawn");
    // Another user naming the same file id gets the Scene without it.
    const refused = await preview(s.url, "/api/app/v1", stranger.accessToken, withImage);
    assertEquals(refused.status, 200);
    assertEquals(refused.bytes, blank.bytes);
  },
);

// ---- metrics --------------------------------------------------------------------------------

suite.test(
  "GET /metrics on the shared port: HTTP by route template, renders, jobs, database",
  async (api, s) => {
    const acct = await account(api, "pm");
    const id = crypto.randomUUID();
    expectStatus(await api.get(`/api/devices/${id}`, { token: acct.accessToken }), 404);
    await preview(s.url, "/api/app/v1", acct.accessToken, { scene: sceneData() });
    const res = await get(s.url, "/metrics");
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    // The route template, never the id: labels cannot grow with requests.
    assert.match(
      text,
      /^http_requests_total\{method="GET",route="\/api\/devices\/\{id\}",status="404"\} 1$/m,
    );
    assert.ok(!text.includes(id));
    assert.match(
      text,
      /^http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/devices\/\{id\}",status="404"\} \d+$/m,
    );
    assert.match(text, /^render_duration_seconds_count\{kind="scene",outcome="ok"\} [1-9]\d*$/m);
    assert.match(text, /^jobs_queue_depth\{queue="render",state="ready"\} \d+$/m);
    assert.match(text, /^db_pool_connections_in_use \d+$/m);
    assert.match(text, /^db_pool_connections_max (1|10)$/m);
    assert.match(text, /^process_resident_memory_bytes \d+/m);
    // An unknown method is one label value, whatever the client sends.
    await (await fetch(`${s.url}/health`, { method: "BREW" })).body?.cancel();
    assert.match(
      await (await get(s.url, "/metrics")).text(),
      /^http_requests_total\{method="OTHER",route="\/health",status="405"\} 1$/m,
    );
  },
);

Deno.test({
  name: "devx: METRICS_TOKEN guards /metrics on every listener, compared as a whole",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const token = "metrics-token-0123456789";
    const s = await startTestServer({ FACTORY_PORT: "0", METRICS_TOKEN: token });
    try {
      for (const base of [s.url, s.factoryUrl]) {
        for (const sent of [undefined, "wrong", `${token}x`, token.slice(0, -1)]) {
          const res = await get(base, "/metrics", sent ? { authorization: `Bearer ${sent}` } : {});
          assertEquals(res.status, 401, `${base} ${sent}`);
          assertEquals(res.headers.get("www-authenticate"), 'Bearer realm="metrics"');
          assertEquals(await res.json(), { error: "A valid METRICS_TOKEN bearer is required" });
        }
        const ok = await get(base, "/metrics", { authorization: `Bearer ${token}` });
        assertEquals(ok.status, 200, base);
        assert.match(await ok.text(), /^# TYPE http_requests_total counter$/m);
      }
    } finally {
      await s.close();
    }
  },
});

Deno.test("devx: where /metrics is served without and with METRICS_TOKEN", () => {
  assertEquals(
    (["combined", "user", "factory"] as const).map((i) => metricsServed(i, undefined)),
    [true, false, true],
  );
  assertEquals(
    (["combined", "user", "factory"] as const).map((i) => metricsServed(i, "t".repeat(16))),
    [true, true, true],
  );
});

suite.end();
