/**
 * Whether the place of a face in `src/domains.ts` decides which route serves a path (issue 35).
 * It does not: the route table and REST dispatch try the most specific template first (a literal
 * segment wins over a parameter: `/api/devices/claim` over `/api/devices/{id}`), so the list's
 * order could only decide between two templates of equal specificity that match one path. No two
 * routes of different faces may be such a pair, and the table answers every route's path the same
 * with the faces in reverse order. (The order still decides the documents' order and the order of
 * the hooks' answers; the versioned surfaces' procedure names must not collide either.)
 */
import { assertEquals } from "../tests/helpers/assert.ts";
import { router } from "./infra/trpc/init.ts";
import { APP_SURFACE } from "./infra/trpc/surfaces.ts";
import { openApiRoutes, RouteTable, specificity } from "./infra/http/routes.ts";
import type { RawRoute } from "./infra/http/raw.ts";
import { allRawRoutes } from "./raw_routes.ts";
import { DOMAINS } from "./domains.ts";

type Face = (typeof DOMAINS)[number];

interface Owned {
  owner: string;
  method: string;
  path: string;
}

/** Does some string match both segments (each literal text and `{param}`s, a param `[^/]+`)? */
export function segmentsOverlap(a: string, b: string): boolean {
  const regex = (s: string) =>
    new RegExp(
      `^${s.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")}$`,
      "i",
    );
  const witness = (s: string) => s.replace(/\{\w+\}/g, "x");
  if (!a.includes("{") && !b.includes("{")) return a.toLowerCase() === b.toLowerCase();
  if (regex(a).test(witness(b)) || regex(b).test(witness(a))) return true;
  if (!a.includes("{") || !b.includes("{")) return false;
  // Both have parameters: their fixed ends must agree (conservative: else assumed to overlap).
  const ends = (s: string) => [s.slice(0, s.indexOf("{")), s.slice(s.lastIndexOf("}") + 1)];
  const [pa, sa] = ends(a.toLowerCase());
  const [pb, sb] = ends(b.toLowerCase());
  const agree = (x: string, y: string, at: "start" | "end") =>
    at === "start" ? x.startsWith(y) || y.startsWith(x) : x.endsWith(y) || y.endsWith(x);
  return agree(pa, pb, "start") && agree(sa, sb, "end");
}

/** Does some path match both templates? */
export function templatesOverlap(a: string, b: string): boolean {
  const sa = a.split("/").filter(Boolean);
  const sb = b.split("/").filter(Boolean);
  return sa.length === sb.length && sa.every((s, i) => segmentsOverlap(s, sb[i]));
}

/**
 * Pairs of routes of different owners that the list's order would decide between: equal
 * specificity, a path matching both (any methods: a 405 answer depends on them too).
 */
export function orderDependent(routes: readonly Owned[]): string[] {
  const out: string[] = [];
  for (const [i, a] of routes.entries()) {
    for (const b of routes.slice(i + 1)) {
      if (a.owner === b.owner || specificity(a.path) !== specificity(b.path)) continue;
      if (templatesOverlap(a.path, b.path)) {
        out.push(`${a.owner} ${a.method} ${a.path} / ${b.owner} ${b.method} ${b.path}`);
      }
    }
  }
  return out;
}

const rawOf = (face: Face): readonly RawRoute[] => "rawRoutes" in face ? face.rawRoutes : [];
const routerOf = (face: Face) => "router" in face ? face.router : undefined;

function ownedRoutes(faces: readonly Face[]): Owned[] {
  const byFace = faces.flatMap((face) => {
    const router = routerOf(face);
    return [
      ...rawOf(face).map((r) => ({ owner: face.name, method: r.method, path: r.path })),
      ...(router ? openApiRoutes(router) : []).map((r) => ({ owner: face.name, ...r })),
    ];
  });
  const faceRaw = new Set(faces.flatMap(rawOf));
  const infrastructure = allRawRoutes({ user: () => ({}), factory: () => ({}) })
    .filter((r) => !faceRaw.has(r))
    .map((r) => ({ owner: "infrastructure", method: r.method, path: r.path }));
  return [...byFace, ...infrastructure];
}

Deno.test("route order: the checker finds two faces' templates that only the order tells apart", () => {
  assertEquals(
    orderDependent([
      { owner: "a", method: "GET", path: "/api/devices/{id}" },
      { owner: "b", method: "DELETE", path: "/api/devices/{deviceId}" },
      { owner: "b", method: "GET", path: "/api/devices/claim" }, // more specific: never ambiguous
      { owner: "c", method: "POST", path: "/x/{id}:approve" },
      { owner: "d", method: "POST", path: "/x/{id}:reject" }, // no path matches both
      { owner: "e", method: "GET", path: "/y/{a}.png" },
      { owner: "f", method: "GET", path: "/y/{b}" },
    ]),
    [
      "a GET /api/devices/{id} / b DELETE /api/devices/{deviceId}",
      "e GET /y/{a}.png / f GET /y/{b}",
    ],
  );
});

Deno.test("route order: no two routes of different faces are told apart by the list's order", () => {
  assertEquals(orderDependent(ownedRoutes(DOMAINS)), []);
});

Deno.test("route order: every route's path is served by the same route with the faces reversed", () => {
  const table = (faces: readonly Face[]) => {
    const routers = Object.fromEntries(
      faces.flatMap((face) => routerOf(face) ? [[face.name, routerOf(face)!]] : []),
    );
    return new RouteTable(router(routers), faces.flatMap((face) => [...rawOf(face)]));
  };
  const forward = table(DOMAINS);
  const reversed = table([...DOMAINS].reverse());
  let checked = 0;
  for (const { method, path } of ownedRoutes(DOMAINS)) {
    const concrete = path.replace(/\{\w+\}/g, "x1");
    const answer = (t: RouteTable) => {
      const m = t.match(method, concrete);
      return m.kind === "route" ? `${m.entry.method} ${m.entry.template}` : m.kind;
    };
    assertEquals(answer(reversed), answer(forward), `${method} ${concrete}`);
    checked++;
  }
  assertEquals(checked > 100, true);
});

Deno.test("route order: no two faces add a procedure of one name to a versioned surface", () => {
  const names = DOMAINS.flatMap((face) =>
    "versioned" in face ? Object.keys(face.versioned(APP_SURFACE)) : []
  );
  assertEquals(names.filter((name, i) => names.indexOf(name) !== i), []);
});
