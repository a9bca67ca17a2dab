/**
 * The pre-router in front of every listener: request id, CORS, ingress, body limit, raw routes,
 * `/trpc`, and the REST mounts of the tRPC procedures (src/infra/http/rest.ts, trpc-to-openapi's rules),
 * with the spec's error envelopes.
 */
import type { AnyRouter } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { AppError } from "../../errors.ts";
import { uuidv7 } from "../lib/ids.ts";
import type { Services } from "../../services.ts";
import type { Context, ResponseHolder } from "../trpc/init.ts";
import { readJson, readJsonBytes } from "./body.ts";
import { applyCors, preflight } from "./cors.ts";
import { envelopeOf, errorResponse, reportFailure, toAppError } from "./envelope.ts";
import type { Logger } from "./log.ts";
import type { RawRoute } from "./raw.ts";
import { isFactoryPath, RouteTable } from "./routes.ts";
import { createRestDispatch, type RestDispatch } from "./rest.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { METRICS_PATH } from "../metrics/route.ts";

/** CONTRACT.md: a `/trpc` batch carries at most this many calls. */
export const TRPC_MAX_BATCH = 10;
/** Key of the factory router in `src/router.ts`. */
const FACTORY_TRPC_PREFIX = "factory.";

/** Which paths a listener serves: everything, the user API only, or the factory console only. */
export type Ingress = "combined" | "user" | "factory";

export interface HandlerOptions {
  router: AnyRouter;
  raw: RawRoute[];
  services: Services;
  logger: Logger;
  ingress: Ingress;
  /** Requests by method, route template and status, with their latency (`/metrics`). */
  metrics?: Metrics;
  /** The REST dispatcher; tests hand in trpc-to-openapi's own to compare the two. */
  rest?: RestDispatch;
}

type ServeInfo = { remoteAddr: { hostname: string } } | undefined;

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;
const BODYLESS = new Set(["GET", "HEAD", "OPTIONS"]);

function bearerOf(req: Request): string | null {
  const header = req.headers.get("authorization");
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1] : null;
}

/**
 * The ingress split holds for `/trpc` too: the factory router's procedures (named `factory.*`)
 * are served only where the factory console is, and the factory port serves nothing else.
 */
function servesTrpc(ingress: Ingress, path: string): boolean {
  if (ingress === "combined") return true;
  let names: string[];
  try {
    names = decodeURIComponent(path.slice("/trpc/".length)).split(",");
  } catch {
    return false;
  }
  const factory = names.map((n) => n.startsWith(FACTORY_TRPC_PREFIX));
  return ingress === "factory" ? factory.every(Boolean) : !factory.some(Boolean);
}

/**
 * The procedure names of a `/trpc` request, as tRPC reads them: the decoded path, split on
 * commas when `batch=1`. Null when the path cannot be decoded.
 */
function trpcCalls(url: URL): string[] | null {
  let path: string;
  try {
    path = decodeURIComponent(url.pathname.slice("/trpc/".length));
  } catch {
    return null;
  }
  return url.searchParams.get("batch") === "1" ? path.split(",") : [path];
}

function servesPath(ingress: Ingress, path: string): boolean {
  // `/metrics` is on every listener; its route decides per listener (src/infra/metrics/route.ts).
  return ingress === "combined" || path === METRICS_PATH ||
    (ingress === "factory") === isFactoryPath(path);
}

/** Builds the fetch handler of one listener. */
export function createHandler(options: HandlerOptions) {
  const { router, services, logger, ingress } = options;
  const routes = new RouteTable(router, options.raw);
  const rest = options.rest ?? createRestDispatch(router);
  const origins = services.config.corsOrigins;

  async function dispatch(req: Request, ctx: Context, url: URL, holder: { template: string }) {
    const { requestId } = ctx;
    if (url.pathname === "/trpc" || url.pathname.startsWith("/trpc/")) {
      holder.template = "/trpc";
      if (!servesTrpc(ingress, url.pathname)) throw new AppError("not_found", "Not found");
      // CONTRACT.md: a larger batch is 400 before any call runs (and before its body is read):
      // each call may hash a password, so the batch size bounds the work of one request.
      const calls = trpcCalls(url)?.length ?? 0;
      if (calls > TRPC_MAX_BATCH) {
        throw new AppError(
          "invalid_request",
          `A batch of ${calls} calls is over the limit of ${TRPC_MAX_BATCH}`,
        );
      }
      return await fetchRequestHandler({
        endpoint: "/trpc",
        req: await withLimitedBody(req),
        router,
        maxBatchSize: TRPC_MAX_BATCH,
        createContext: () => ctx,
        // The caller sees "Internal server error"; the cause is only in the log.
        onError: ({ error, path }) =>
          reportFailure(logger, { requestId, path: `/trpc/${path ?? ""}` }, error),
        responseMeta: ({ errors }) => ({
          headers: { ...errorHeaders(errors), ...ctx.response.headers },
        }),
      });
    }
    const match = servesPath(ingress, url.pathname)
      ? routes.match(req.method, url.pathname)
      : { kind: "none" as const };
    if (match.kind === "none") throw new AppError("not_found", "Not found");
    if (match.kind === "method_not_allowed") {
      holder.template = match.template;
      throw new AppError("method_not_allowed", `Method ${req.method} is not allowed here`, {
        allow: match.allow.join(", "),
      });
    }
    holder.template = match.entry.template;
    if (match.entry.raw) {
      return await match.entry.raw.handle(req, { ...ctx, params: match.params });
    }
    return await rest(req, url, await readJsonBody(req), ctx);
  }

  return async function handle(req: Request, info?: ServeInfo): Promise<Response> {
    const started = performance.now();
    const url = new URL(req.url);
    const incomingId = req.headers.get("x-request-id");
    const requestId = incomingId && REQUEST_ID.test(incomingId) ? incomingId : uuidv7();
    const response: ResponseHolder = { headers: {} };
    const holder = { template: "(unmatched)" };
    const ctx: Context = {
      req,
      requestId,
      ip: info?.remoteAddr.hostname ?? "",
      userAgent: req.headers.get("user-agent") ?? "",
      bearer: bearerOf(req),
      response,
      services,
    };
    let res: Response;
    try {
      res = req.method === "OPTIONS"
        ? preflight(origins, req)
        : await dispatch(req, ctx, url, holder);
    } catch (error) {
      reportFailure(logger, { requestId, path: holder.template }, error);
      res = errorResponse(envelopeOf(url.pathname), toAppError(error), requestId);
    }
    // A request that changed something answers once the change is announced (issue 13: the
    // caller's next request, to any process, must not be served from a stale cache).
    if (!BODYLESS.has(req.method)) await services.changes.settled();
    const out = withHeaders(
      res,
      response.headers,
      requestId,
      (headers) => applyCors(origins, req, headers),
    );
    const ms = performance.now() - started;
    options.metrics?.httpRequest(req.method, holder.template, out.status, ms / 1e3);
    logger.request({
      method: req.method,
      path: holder.template,
      status: out.status,
      ms: Math.round(ms * 100) / 100,
      requestId,
    });
    return out;
  };
}

/**
 * `res` with the procedure's headers, `X-Request-Id` and CORS set, in that order. A response the
 * service built has mutable headers and is completed in place (issue 13: no second Response per
 * request); one with immutable headers (a redirect, a fetched one) is copied, as before.
 */
function withHeaders(
  res: Response,
  extra: Record<string, string>,
  requestId: string,
  cors: (headers: Headers) => void,
): Response {
  const complete = (headers: Headers) => {
    for (const [k, v] of Object.entries(extra)) headers.set(k, v);
    headers.set("x-request-id", requestId);
    cors(headers);
  };
  try {
    // The first `set` throws before changing anything when the headers are immutable.
    complete(res.headers);
    return res;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  const headers = new Headers(res.headers);
  complete(headers);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/** Headers the AppErrors of a tRPC response carry (`Retry-After` of a 429). */
function errorHeaders(errors: readonly { cause?: unknown }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const error of errors) {
    if (error.cause instanceof AppError) Object.assign(out, error.cause.headers);
  }
  return out;
}

/** Re-creates a `/trpc` request with its body read by `readJsonBytes`. */
async function withLimitedBody(req: Request): Promise<Request> {
  // tRPC reads `signal`; deno.json's `no-legacy-abort` keeps Deno from warning about it.
  if (BODYLESS.has(req.method)) return req;
  const body = await readJsonBytes(req);
  const headers = new Headers(req.headers);
  headers.set("content-type", "application/json");
  return new Request(req.url, { method: req.method, headers, body });
}

/** The parsed JSON body of a REST call; `undefined` for methods that carry none. */
function readJsonBody(req: Request): Promise<unknown> {
  if (BODYLESS.has(req.method) || req.method === "DELETE") return Promise.resolve(undefined);
  return readJson(req);
}
