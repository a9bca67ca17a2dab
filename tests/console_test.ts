/**
 * Issue 38: the owner's console at `/`. The page and its modules are served with a CSP that runs
 * only this origin's scripts; every module the page imports is served; nothing else is. (What the
 * console does is tested in a browser: browser/tests/console.spec.ts.)
 */
import { assert, assertEquals } from "./helpers/assert.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import { serverSuite } from "./helpers/suite.ts";

const suite = serverSuite("console");

const get = (base: string, path: string) => fetchChecked(`${base}${path}`);

suite.test("GET / answers the console with a strict CSP and no inline script", async (_api, s) => {
  const page = await get(s.url, "/");
  assertEquals(page.status, 200);
  assertEquals(page.headers.get("content-type"), "text/html; charset=utf-8");
  const csp = page.headers.get("content-security-policy") ?? "";
  assert.match(csp, /(^|; )script-src 'self'(;|$)/);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /frame-ancestors 'none'/);
  const html = await page.text();
  assert.match(html, /<script type="module" src="\/console\/app\.js"><\/script>/);
  // No identity provider configured: the console offers none.
  assert.match(html, /<body data-providers="">/);
  assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/.test(html), "an inline script");
});

suite.test("every module the console imports is served as JavaScript", async (_api, s) => {
  const seen = new Set<string>();
  const queue = ["app.js"];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const res = await get(s.url, `/console/${file}`);
    assertEquals(res.status, 200, file);
    assertEquals(res.headers.get("content-type"), "text/javascript; charset=utf-8", file);
    for (const [, name] of (await res.text()).matchAll(/from "\.\/([\w.]+)"/g)) queue.push(name);
  }
  assert.ok(seen.size >= 6, [...seen].join(", "));
  const css = await get(s.url, "/console/console.css");
  assertEquals(css.headers.get("content-type"), "text/css; charset=utf-8");
  await css.body?.cancel();
});

suite.test("a file the console does not have is 404, never a file of the tree", async (_api, s) => {
  for (
    const path of [
      "/console/nope.js",
      "/console/index.html",
      "/console/..%2Fdocs.ts",
      "/index.html",
    ]
  ) {
    const res = await get(s.url, path);
    assertEquals([res.status, await res.json()], [404, { error: "Not found" }], path);
  }
});

suite.test("the user document lists / and its files as public pages", async (_api, s) => {
  const doc = await (await get(s.url, "/openapi.json")).json();
  for (const path of ["/", "/console/{file}"]) {
    assertEquals(doc.paths[path]?.get?.security, [], path);
  }
});

suite.end();
