/**
 * The route table: every REST path of the tRPC router (from its OpenAPI meta) plus the raw
 * routes, matched in declaration order like trpc-to-openapi. Gives the path template for logs,
 * 404 and 405 before any handler runs, and which raw handler owns a path.
 */
import type { AnyRouter } from "@trpc/server";
import type { RawRoute } from "./raw.ts";

/** Where the factory console is mounted (SPEC 4.8). */
export const FACTORY_PREFIX = "/internal/factory";

/**
 * Whether a path belongs to the factory console: served only on its ingress (FACTORY_PORT when
 * set) and documented only in its document.
 */
export function isFactoryPath(path: string): boolean {
  return path === FACTORY_PREFIX || path.startsWith(`${FACTORY_PREFIX}/`);
}

export interface RouteEntry {
  method: string;
  template: string;
  raw?: RawRoute;
  pattern: RegExp;
  /** `specificity(template)`, worked out once. */
  rank?: string;
}

export type RouteMatch =
  | { kind: "route"; entry: RouteEntry; params: Record<string, string> }
  | { kind: "method_not_allowed"; allow: string[]; template: string }
  | { kind: "none" };

function compile(template: string): RegExp {
  const source = template.replace(
    /[.*+?^${}()|[\]\\]/g,
    (ch) => ch === "{" || ch === "}" ? ch : `\\${ch}`,
  )
    .replace(/\{(\w+)\}/g, "(?<$1>[^/]+)");
  return new RegExp(`^${source}/?$`);
}

/** The `{method, path}` of every procedure that has OpenAPI meta. */
export function openApiRoutes(router: AnyRouter): Array<{ method: string; path: string }> {
  const out: Array<{ method: string; path: string }> = [];
  for (const procedure of Object.values(router._def.procedures)) {
    const meta = (procedure as { _def: { meta?: { openapi?: { method: string; path: string } } } })
      ._def.meta?.openapi;
    if (meta) out.push({ method: meta.method, path: meta.path });
  }
  return out;
}

/**
 * How specific a template is, segment by segment: `0` a literal, `1` a parameter. Of two templates
 * that match one path (they have as many segments), the one whose key sorts first has a literal
 * where the other has its first parameter, and wins: `/api/devices/claim` over
 * `/api/devices/{id}` (issue 34: `GET /api/devices/claim` was 400 "id: must be a UUID", not 405).
 */
export function specificity(template: string): string {
  return template.split("/").filter(Boolean).map((s) => s.includes("{") ? "1" : "0").join("");
}

/** Entries sorted most specific first, in declaration order among equals (a stable sort). */
export function mostSpecificFirst<T>(entries: T[], template: (entry: T) => string): T[] {
  const keyed = entries.map((entry) => ({ entry, key: specificity(template(entry)) }));
  keyed.sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  return keyed.map((k) => k.entry);
}

/**
 * How many non-empty segments a path has, and its first and last (lower-cased; empty when it has
 * none). A template matches only paths with as many non-empty segments (each parameter is one, a
 * trailing `/` adds none), so these are the key its candidates are found by.
 */
export function pathShape(path: string): { n: number; first: string; last: string } {
  let n = 0;
  let firstAt = 0, firstEnd = 0, lastAt = 0, lastEnd = 0;
  for (let i = 0; i < path.length;) {
    if (path.charCodeAt(i) === 47) {
      i++;
      continue;
    }
    let end = path.indexOf("/", i);
    if (end === -1) end = path.length;
    if (n === 0) [firstAt, firstEnd] = [i, end];
    [lastAt, lastEnd] = [i, end];
    n++;
    i = end;
  }
  return {
    n,
    first: path.slice(firstAt, firstEnd).toLowerCase(),
    last: path.slice(lastAt, lastEnd).toLowerCase(),
  };
}

/** How many non-empty segments a path has (`pathShape`). */
export function segmentCount(path: string): number {
  return pathShape(path).n;
}

/** The key of a segment that no template of its position names as a literal. */
const ANY = "{";

/**
 * Entries that can match a path, by its segment count and its first and last segments, each list
 * in the entries' order (most specific first, as given): those of as many segments whose first
 * segment is the path's or a parameter, and whose last is the path's or a parameter. A segment no
 * template names as a literal there leaves the parameters only. Worked out once from the
 * templates, so the keys are theirs (bounded).
 */
export class CandidateIndex<T> {
  readonly #byKey = new Map<string, T[]>();
  readonly #firsts = new Map<number, Set<string>>();
  readonly #lasts = new Map<number, Set<string>>();

  constructor(entries: readonly T[], template: (entry: T) => string) {
    const isParam = (segment: string) => segment.includes(ANY);
    const shapes = entries.map((e) => ({ e, ...pathShape(template(e)) }));
    for (const { n, first, last } of shapes) {
      if (!this.#firsts.has(n)) this.#firsts.set(n, new Set([ANY]));
      if (!this.#lasts.has(n)) this.#lasts.set(n, new Set([ANY]));
      if (!isParam(first)) this.#firsts.get(n)!.add(first);
      if (!isParam(last)) this.#lasts.get(n)!.add(last);
    }
    for (const [n, firsts] of this.#firsts) {
      for (const first of firsts) {
        for (const last of this.#lasts.get(n)!) {
          this.#byKey.set(
            `${n}/${first}/${last}`,
            shapes.filter((o) =>
              o.n === n && (o.first === first || isParam(o.first)) &&
              (o.last === last || isParam(o.last))
            ).map((o) => o.e),
          );
        }
      }
    }
  }

  /** The entries that can match `path` (its segments compared in lower case). */
  candidates(path: string): readonly T[] {
    const { n, first, last } = pathShape(path);
    const firsts = this.#firsts.get(n);
    if (!firsts) return [];
    const f = firsts.has(first) ? first : ANY;
    const l = this.#lasts.get(n)!.has(last) ? last : ANY;
    return this.#byKey.get(`${n}/${f}/${l}`) ?? [];
  }
}

/** How many matched paths with parameters a table remembers (a few MB at most). */
export const MATCHES_MAX = 10_000;

export class RouteTable {
  readonly entries: RouteEntry[];
  /**
   * The entries that can match a path, by its segment count and first segment, most specific
   * first, then in declaration order (`mostSpecificFirst`; issue 13: no scan of every pattern per
   * request; issue 40: nor of every `/api` pattern, most of the table).
   */
  readonly #candidates: CandidateIndex<RouteEntry>;
  /**
   * The answer for each method on each parameter-free template's own path, worked out once by
   * the scan below, so the most frequent requests (`/health`, `/auth/me`, `/api/devices`) match
   * without a regular expression or an allocation (issue 10: the request loop's GC pauses).
   */
  readonly #literal = new Map<string, Map<string, RouteMatch>>();

  constructor(router: AnyRouter, raw: RawRoute[]) {
    // Raw routes first: they own paths tRPC cannot serve (DELETE bodies, forms, files).
    this.entries = mostSpecificFirst([
      ...raw.map((r) => ({ method: r.method, template: r.path, raw: r, pattern: compile(r.path) })),
      ...openApiRoutes(router).map((r) => ({
        method: r.method,
        template: r.path,
        pattern: compile(r.path),
      })),
    ], (e) => e.template).map((e) => ({ ...e, rank: specificity(e.template) }));
    this.#candidates = new CandidateIndex(this.entries, (e) => e.template);
    const methods = new Set(this.entries.map((e) => e.method));
    for (const { template } of this.entries) {
      if (template.includes("{") || this.#literal.has(template)) continue;
      const answers = new Map<string, RouteMatch>();
      for (const method of methods) answers.set(method, frozen(this.#scan(method, template)));
      this.#literal.set(template, answers);
    }
  }

  /**
   * The routes of paths with parameters matched lately (a device's `/push`, polled all day), by
   * method and path: a hit is one map read instead of the candidates' regular expressions and
   * the parameters' decoding (issue 40: a tenth of a `GET .../push`'s CPU, with the REST
   * dispatcher's own match). Bounded: cleared at `MATCHES_MAX` paths.
   */
  readonly #matched = new Map<string, RouteMatch>();

  match(method: string, path: string): RouteMatch {
    const literal = this.#literal.get(path)?.get(method);
    if (literal) return literal;
    const key = `${method} ${path}`;
    let match = this.#matched.get(key);
    if (match) return match;
    match = this.#scan(method, path);
    if (match.kind !== "route") return match;
    if (this.#matched.size >= MATCHES_MAX) this.#matched.clear();
    this.#matched.set(key, match = frozen(match));
    return match;
  }

  /**
   * The path's most specific matching templates decide: the method's route among them, else 405
   * with their methods. A less specific template never serves a path a more specific one names.
   */
  #scan(method: string, path: string): RouteMatch {
    const allow = new Set<string>();
    let template = "";
    let best: string | undefined;
    for (const entry of this.#candidates.candidates(path)) {
      const m = entry.pattern.exec(path);
      if (!m) continue;
      const key = entry.rank;
      if (best !== undefined && key !== best) break;
      best = key;
      if (entry.method === method) {
        const params: Record<string, string> = {};
        for (const [k, v] of Object.entries(m.groups ?? {})) params[k] = safeDecode(v);
        return { kind: "route", entry, params };
      }
      allow.add(entry.method);
      template ||= entry.template;
    }
    return allow.size
      ? { kind: "method_not_allowed", allow: [...allow], template }
      : { kind: "none" };
  }
}

/** A shared answer cannot be changed by one request for the next. */
function frozen(match: RouteMatch): RouteMatch {
  if (match.kind === "route") Object.freeze(match.params);
  if (match.kind === "method_not_allowed") Object.freeze(match.allow);
  return Object.freeze(match);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
