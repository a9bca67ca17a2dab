/**
 * REST dispatch of the tRPC procedures that carry OpenAPI meta (issue 13). It does what
 * trpc-to-openapi's node handler did per request (STACK.md), step for step, with everything that
 * depends only on the router worked out once: the route table (same templates, same
 * case-insensitive patterns, same first-match order, looked up among the routes that share the
 * path's first segment instead of scanning all), each procedure's unwrapped input schema and its
 * array keys, and the procedure itself, called directly instead of through a per-request
 * `createCaller` proxy. Input coercion (query strings, path parameters, JSON bodies, zod's
 * `coerce` switched on at the first call as the library did), statuses and bodies are the
 * library's; errors leave as the TRPCError it handed to `onError`, for the envelope layer.
 */
import {
  type AnyProcedure,
  type AnyRouter,
  getTRPCErrorFromUnknown,
  TRPCError,
} from "@trpc/server";
import { z } from "zod";
import type { Context } from "../trpc/init.ts";
import { CandidateIndex, MATCHES_MAX, mostSpecificFirst } from "./routes.ts";
import { AppError, withoutStack } from "../../errors.ts";

/** Serves one REST request; rejects with the error the envelope layer renders. */
export type RestDispatch = (req: Request, url: URL, body: unknown, ctx: Context) => Promise<
  Response
>;

/** A zod schema as trpc-to-openapi inspects it (`_zod.def.type`, `def`, `shape`). */
// deno-lint-ignore no-explicit-any -- the library walks zod internals untyped
type Schema = any;

interface Route {
  pattern: RegExp;
  /** The procedure's key in the router (`devices.getPush`). */
  path: string;
  procedure: AnyProcedure;
  input?: InputPlan;
}

/** What the library derived from a procedure's input schema on every request. */
interface InputPlan {
  /** `z.void()`, `z.undefined()` or `z.never()`: the input stays undefined. */
  isVoid: boolean;
  /** An object schema: coercion applies, and array fields of a query are wrapped. */
  object?: Schema;
  arrayKeys: string[];
  coerced: boolean;
}

const kind = (type: Schema, name: string) => type?._zod?.def?.type === name;

/** trpc-to-openapi's `unwrapZodType(type, true)`. */
function unwrap(type: Schema): Schema {
  if (kind(type, "array")) return unwrap(type.element);
  if (kind(type, "enum")) return unwrap(z.string());
  if (kind(type, "nullable") || kind(type, "optional")) return unwrap(type.unwrap());
  if (kind(type, "default") || kind(type, "prefault")) return unwrap(type.unwrap());
  if (kind(type, "lazy")) return unwrap(type.def.getter());
  if (kind(type, "pipe")) {
    if (kind(type._zod.def.out, "transform")) return unwrap(type._zod.def.in);
    return unwrap(type.def.out);
  }
  return type;
}

/** trpc-to-openapi's `unwrapZodType(type, false)`. */
function unwrapKeepPipes(type: Schema): Schema {
  if (kind(type, "array")) return unwrapKeepPipes(type.element);
  if (kind(type, "enum")) return unwrapKeepPipes(z.string());
  if (kind(type, "nullable") || kind(type, "optional")) return unwrapKeepPipes(type.unwrap());
  if (kind(type, "default") || kind(type, "prefault")) return unwrapKeepPipes(type.unwrap());
  if (kind(type, "lazy")) return unwrapKeepPipes(type.def.getter());
  return type;
}

/** trpc-to-openapi's `coerceSchema`: number, boolean, bigint and date fields coerce. */
function coerceSchema(schema: Schema): void {
  for (const field of Object.values(schema.shape) as Schema[]) {
    const inner = unwrapKeepPipes(field);
    const coercible = ["number", "boolean", "bigint", "date"].some((k) =>
      kind(unwrapKeepPipes(inner), k)
    );
    if (coercible) inner._def.coerce = true;
    else if (kind(inner, "object")) coerceSchema(inner);
  }
}

/** trpc-to-openapi's input parser of a procedure (its inputs merged, or an empty object). */
function inputParser(procedure: AnyProcedure): Schema {
  const inputs = (procedure._def as { inputs: Schema[] }).inputs;
  if (inputs.length >= 2) {
    return inputs.reduce((acc: Schema, parser: Schema) => acc.merge(parser), z.object({}));
  }
  return inputs.length === 1 ? inputs[0] : z.object({});
}

function planInput(procedure: AnyProcedure): InputPlan {
  const schema = unwrap(inputParser(procedure));
  const isVoid = kind(schema, "void") || kind(schema, "undefined") || kind(schema, "never");
  if (!kind(schema, "object")) return { isVoid, arrayKeys: [], coerced: false };
  const arrayKeys = Object.entries(schema.shape as Record<string, Schema>)
    .filter(([, shape]) =>
      kind(shape, "array") || (kind(shape, "optional") && kind(shape.unwrap(), "array"))
    )
    .map(([key]) => key);
  return { isVoid, object: schema, arrayKeys, coerced: false };
}

/** trpc-to-openapi's `normalizePath`. */
const normalizePath = (path: string) => `/${path.replace(/^\/|\/$/g, "")}`;

/**
 * Routes of one method, most specific first then in declaration order (routes.ts
 * `mostSpecificFirst`: a literal segment wins over a parameter, as in the route table), looked up
 * among those of the path's segment count whose first segment is the path's (or a parameter):
 * the same first match as scanning them all.
 */
class MethodRoutes {
  #routes: Array<{ route: Route; template: string }> = [];
  #index?: CandidateIndex<{ route: Route; template: string }>;

  add(route: Route, template: string): void {
    this.#routes = mostSpecificFirst([...this.#routes, { route, template }], (r) => r.template);
    this.#index = undefined;
  }

  find(path: string): { route: Route; params: Record<string, string> } | undefined {
    const index = this.#index ??= new CandidateIndex(this.#routes, (r) => r.template);
    for (const { route } of index.candidates(path)) {
      const match = route.pattern.exec(path);
      if (match) return { route, params: { ...match.groups } };
    }
    return undefined;
  }
}

/**
 * RFC 3986 6.2.2.2: a percent-encoded unreserved character is that character, so
 * `/api/devices/0193%2D...` names the same device as `/api/devices/0193-...`. trpc-to-openapi
 * hands path parameters over still encoded (STACK.md). Only letters, digits, `-`, `_` and `~`
 * are decoded: a decoded `/` or `.` could change which route matches.
 */
export function decodeUnreservedPath(path: string): string {
  if (!path.includes("%")) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return /^[A-Za-z0-9_~-]$/.test(char) ? char : escape;
  });
}

/** `decodeUnreservedPath` on the path of a whole URL (query and origin untouched). */
export function decodeUnreserved(href: string): string {
  const url = new URL(href);
  return url.origin + decodeUnreservedPath(url.pathname) + url.search;
}

/** trpc-to-openapi's `getQuery`: repeated keys become arrays, single ones their value. */
function queryOf(url: URL): Record<string, unknown> {
  // deno-lint-ignore no-explicit-any -- the library's own loose record, `__proto__` and all
  const parsed: any = {};
  url.searchParams.forEach((value, key) => {
    if (!parsed[key]) parsed[key] = [];
    parsed[key].push(value);
  });
  const query: Record<string, unknown> = {};
  for (const key of Object.keys(parsed)) {
    const value = parsed[key];
    if (value) query[key] = Array.isArray(value) && value.length === 1 ? value[0] : value;
  }
  return query;
}

/** trpc-to-openapi's `getErrorFromUnknown`. */
function errorFromUnknown(cause: unknown): TRPCError {
  if (cause instanceof Error && cause.name === "TRPCError") return cause as TRPCError;
  const error = new TRPCError({
    message: "Internal server error",
    code: "INTERNAL_SERVER_ERROR",
    cause: cause instanceof Error ? cause : undefined,
  });
  if (cause instanceof Error && cause.stack) error.stack = cause.stack;
  return error;
}

const JSON_HEADERS = { "Content-Type": "application/json" };

/** The options tRPC hands each middleware of a procedure. */
// deno-lint-ignore no-explicit-any -- tRPC's internal middleware protocol
type CallOptions = Record<string, any>;
// deno-lint-ignore no-explicit-any -- tRPC's internal middleware protocol
type Middleware = (opts: CallOptions) => Promise<any>;
interface ProcedureDef {
  middlewares: Middleware[];
  meta?: unknown;
}

/**
 * tRPC's `callRecursive` (the middleware chain of a procedure call), statement for statement,
 * with the language's object spread where the library's build uses a `_objectSpread2` helper
 * (ownKeys + defineProperty per key, twice per middleware: a fifth of a push request's CPU).
 */
// deno-lint-ignore no-explicit-any -- tRPC's internal middleware protocol
async function callRecursive(index: number, def: ProcedureDef, opts: CallOptions): Promise<any> {
  try {
    const middleware = def.middlewares[index];
    return await middleware({
      ...opts,
      meta: def.meta,
      input: opts.input,
      next(nextOpts?: CallOptions) {
        return callRecursive(index + 1, def, {
          ...opts,
          ctx: nextOpts?.ctx ? { ...opts.ctx, ...nextOpts.ctx } : opts.ctx,
          input: nextOpts && "input" in nextOpts ? nextOpts.input : opts.input,
          getRawInput: nextOpts?.getRawInput ?? opts.getRawInput,
        });
      },
    });
  } catch (cause) {
    // A refused call (a 4xx AppError) is wrapped without capturing a stack, as it was thrown.
    const error = cause instanceof AppError && cause.status < 500
      ? withoutStack(() => getTRPCErrorFromUnknown(cause))
      : getTRPCErrorFromUnknown(cause);
    return { ok: false, error, marker: "middlewareMarker" };
  }
}

/** tRPC's procedure call (`createProcedureCaller`) over `callRecursive` above. */
async function callProcedure(procedure: AnyProcedure, opts: CallOptions): Promise<unknown> {
  const result = await callRecursive(0, procedure._def as unknown as ProcedureDef, opts);
  if (!result) {
    throw new TRPCError({
      code: "INTERNAL_SERVER_ERROR",
      message: "No result from middlewares - did you forget to `return next()`?",
    });
  }
  if (!result.ok) throw result.error;
  return result.data;
}

/** Builds the dispatcher of a router's REST procedures. */
export function createRestDispatch(router: AnyRouter): RestDispatch {
  const byMethod = new Map<string, MethodRoutes>();
  for (
    const [path, procedure] of Object.entries(
      router._def.procedures as Record<string, AnyProcedure>,
    )
  ) {
    const meta = (procedure._def as {
      meta?: { openapi?: { method: string; path: string; enabled?: boolean } };
    })
      .meta?.openapi;
    if (!meta || meta.enabled === false || procedure._def.type === "subscription") continue;
    const template = normalizePath(meta.path);
    const grouped = template.replace(/\{(.+?)\}/g, (_, key) => `(?<${key}>[^/]+)`);
    let routes = byMethod.get(meta.method);
    if (!routes) byMethod.set(meta.method, routes = new MethodRoutes());
    routes.add({ pattern: new RegExp(`^${grouped}$`, "i"), path, procedure }, template);
  }

  // The route and parameters of paths matched lately, by method and raw path (the route table's
  // `#matched`, routes.ts): a device's `/push` polled all day is matched once. Bounded.
  const matched = new Map<string, { route: Route; params: Record<string, string> }>();
  const find = (method: string, pathname: string) => {
    const key = `${method} ${pathname}`;
    let found = matched.get(key);
    if (found) return found;
    found = byMethod.get(method)?.find(normalizePath(decodeUnreservedPath(pathname)));
    if (!found) return undefined;
    if (matched.size >= MATCHES_MAX) matched.clear();
    Object.freeze(found.params);
    matched.set(key, found);
    return found;
  };

  return async (req, url, body, ctx) => {
    const method = req.method;
    const found = find(method, url.pathname);
    let response: Response;
    try {
      if (!found) throw new TRPCError({ message: "Not found", code: "NOT_FOUND" });
      const { route, params } = found;
      const useBody = method !== "GET" && method !== "DELETE";
      if (useBody && body === undefined) {
        // Unreachable from the pre-router (it reads every such body); the library's check.
        const contentType = req.headers.get("content-type") ?? undefined;
        if (!contentType?.startsWith("application/json")) {
          throw new TRPCError({
            code: "UNSUPPORTED_MEDIA_TYPE",
            message: contentType
              ? `Unsupported content-type "${contentType}`
              : "Missing content-type header",
          });
        }
      }
      const plan = route.input ??= planInput(route.procedure);
      // deno-lint-ignore no-explicit-any -- the library's loose input record
      let input: any = undefined;
      if (!plan.isVoid) {
        input = { ...(useBody ? body as object : queryOf(url)), ...params };
      }
      if (plan.object) {
        if (!useBody) {
          for (const key of plan.arrayKeys) {
            if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
          }
        }
        if (!plan.coerced) {
          coerceSchema(plan.object);
          plan.coerced = true;
        }
      }
      const data = await callProcedure(route.procedure, {
        path: route.path,
        getRawInput: () => Promise.resolve(input),
        ctx,
        type: route.procedure._def.type,
        signal: undefined,
        batchIndex: 0,
      });
      const status = ctx.response.status ?? 200;
      const payload = JSON.stringify(data);
      response = status === 204
        ? new Response(null, { status })
        : new Response(payload ?? null, { status, headers: JSON_HEADERS });
    } catch (cause) {
      throw errorFromUnknown(cause);
    }
    return response;
  };
}
