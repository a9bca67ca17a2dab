import { assertEquals } from "../../../tests/helpers/assert.ts";
import { appRouter } from "../../router.ts";
import { allRawRoutes } from "../../raw_routes.ts";
import { CandidateIndex, MATCHES_MAX, pathShape, RouteTable, segmentCount } from "./routes.ts";

/**
 * The lookup before issue 13: every entry's pattern, in the table's order (most specific first,
 * issue 34), the most specific matching templates deciding.
 */
function scanAll(table: RouteTable, method: string, path: string) {
  const allow = new Set<string>();
  let template = "";
  let best: string | undefined;
  for (const entry of table.entries) {
    const m = entry.pattern.exec(path);
    if (!m) continue;
    if (best !== undefined && entry.rank !== best) break;
    best = entry.rank;
    if (entry.method === method) return { kind: "route", template: entry.template };
    allow.add(entry.method);
    template ||= entry.template;
  }
  return allow.size
    ? { kind: "method_not_allowed", allow: [...allow], template }
    : { kind: "none" };
}

Deno.test("the indexes (first segment, literal paths) find what scanning every route finds", () => {
  const table = new RouteTable(appRouter, allRawRoutes({ user: () => ({}), factory: () => ({}) }));
  const paths = new Set<string>(["/", "//", "/nope", "/api", "/api/", "/API/devices", ""]);
  for (const entry of table.entries) {
    for (const fill of ["x", "0193-ab", "%2F", ""]) {
      const path = entry.template.replace(/\{\w+\}/g, fill);
      for (const p of [path, `${path}/`, `${path}/extra`, path.toUpperCase()]) paths.add(p);
    }
  }
  // Twice: the second pass answers paths with parameters from the table's memory of matches.
  for (const path of [...paths, ...paths]) {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]) {
      const got = table.match(method, path);
      const summary = got.kind === "route"
        ? { kind: "route", template: got.entry.template }
        : got.kind === "method_not_allowed"
        ? { kind: got.kind, allow: got.allow, template: got.template }
        : { kind: "none" };
      assertEquals(summary, scanAll(table, method, path), `${method} ${path}`);
    }
  }
});

Deno.test("a literal path's answer is shared and cannot be changed by a request", () => {
  const table = new RouteTable(appRouter, allRawRoutes({ user: () => ({}), factory: () => ({}) }));
  const first = table.match("GET", "/health");
  assertEquals(first.kind, "route");
  assertEquals(table.match("GET", "/health"), first);
  if (first.kind !== "route") return;
  assertEquals([Object.isFrozen(first), Object.isFrozen(first.params)], [true, true]);
});

Deno.test("a path with parameters is matched once: its answer is remembered, shared and frozen", () => {
  const table = new RouteTable(appRouter, allRawRoutes({ user: () => ({}), factory: () => ({}) }));
  const path = "/api/devices/0193%2Dab/push";
  const first = table.match("GET", path);
  if (first.kind !== "route") throw new Error(`no route for ${path}`);
  assertEquals([first.entry.template, first.params], ["/api/devices/{id}/push", { id: "0193-ab" }]);
  assertEquals(table.match("GET", path) === first, true);
  assertEquals([Object.isFrozen(first), Object.isFrozen(first.params)], [true, true]);
  // Another method on the same path is its own answer; past the bound, answers are still right.
  assertEquals(table.match("POST", path) === first, false);
  for (let i = 0; i <= MATCHES_MAX; i++) table.match("GET", `/api/devices/d${i}/push`);
  const again = table.match("GET", path);
  assertEquals(again.kind === "route" && again.params, { id: "0193-ab" });
});

Deno.test("candidates: a path's segment count, first and last segments pick them, in order", () => {
  assertEquals(
    ["/", "/api", "/api/", "/api//devices", "/api/devices/x/push/"].map(segmentCount),
    [0, 1, 1, 2, 4],
  );
  assertEquals(pathShape("/API//Devices/x/"), { n: 3, first: "api", last: "x" });
  const templates = ["/api/devices/claim", "/api/devices/{id}", "/{any}/x", "/api/{v}", "/health"];
  const index = new CandidateIndex(templates, (t) => t);
  assertEquals(index.candidates("/api/devices/claim"), ["/api/devices/claim", "/api/devices/{id}"]);
  assertEquals(index.candidates("/api/devices/123"), ["/api/devices/{id}"]);
  assertEquals(index.candidates("/API/devices/"), ["/api/{v}"]);
  assertEquals(index.candidates("/api/x"), ["/{any}/x", "/api/{v}"]);
  assertEquals(index.candidates("/other/x"), ["/{any}/x"]);
  assertEquals(index.candidates("/health/"), ["/health"]);
  assertEquals(index.candidates("/{/{"), []);
  assertEquals(index.candidates("/a/b/c/d/e"), []);
});
