/**
 * tRPC initialisation: the request context, the base procedure and the mapping of AppError to
 * tRPC codes. Procedures throw AppError; the HTTP layer turns it into the surface's envelope.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { AppError, withoutStack } from "../../errors.ts";
import { databaseUnavailable, isDatabaseUnavailable } from "../db/errors.ts";
import type { Caller } from "../../caller.ts";
import type { Services } from "../../services.ts";
import type { Access, StatusDocs } from "../http/operation.ts";

/** Status and headers a procedure sets on its response (201, 204, Retry-After, ...). */
export interface ResponseHolder {
  status?: number;
  headers: Record<string, string>;
}

/** What every procedure sees: the request, who called (after auth) and the services. */
export interface Context {
  req: Request;
  requestId: string;
  ip: string;
  userAgent: string;
  /** The raw bearer credential, or null; only the auth middlewares look at it. */
  bearer: string | null;
  response: ResponseHolder;
  services: Services;
  caller?: Caller;
}

/** The success statuses a procedure may declare. */
export type SuccessStatus = 200 | 201 | 202 | 204;

/**
 * A procedure's meta: trpc-to-openapi's `openapi` (method, path, summary, tags, description,
 * `errorResponses`, `requestHeaders`, `responseHeaders`, `successDescription`) plus the fields
 * both the runtime and the document read (src/infra/openapi/procedures.ts), so each is said once.
 */
export type ApiMeta = OpenApiMeta<{
  /** Who may call: set by the base procedures of src/infra/trpc/auth.ts, never by a procedure. */
  access?: Access;
  /** The REST success status (default 200); `baseProcedure` sets it on the response. */
  status?: SuccessStatus;
  /** Other success statuses the handler sets itself (`ctx.response.status`), same body. */
  statuses?: StatusDocs;
}>;

type TrpcCode = ConstructorParameters<typeof TRPCError>[0]["code"];

const TRPC_CODE: Record<number, TrpcCode> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  402: "PAYMENT_REQUIRED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  410: "NOT_FOUND",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "TOO_MANY_REQUESTS",
  501: "NOT_IMPLEMENTED",
  503: "SERVICE_UNAVAILABLE",
};

/** Wraps an AppError so tRPC clients see a fitting code; REST reads the AppError from `cause`. */
export function toTrpcError(error: AppError): TRPCError {
  const make = () =>
    new TRPCError({
      code: TRPC_CODE[error.status] ?? "INTERNAL_SERVER_ERROR",
      message: error.message,
      cause: error,
    });
  // An expected answer (4xx) carries no stack, like the AppError it wraps.
  return error.status < 500 ? withoutStack(make) : make();
}

const t = initTRPC.context<Context>().meta<ApiMeta>().create({
  // CONTRACT.md: `/trpc` never returns stack traces. tRPC adds `data.stack` whenever NODE_ENV is
  // not "production" (it is unset in tests and `deno task test`), so development mode is off for
  // good, and the formatter below drops the field whatever the mode.
  isDev: false,
  errorFormatter: ({ shape, error }) => {
    const { stack: _stack, ...data } = shape.data as typeof shape.data & { stack?: string };
    // An unexpected failure's own message can name SQL, files or hosts; only AppErrors and
    // tRPC's own client errors are written for the caller.
    const internal = error.code === "INTERNAL_SERVER_ERROR" && !(error.cause instanceof AppError);
    return { ...shape, message: internal ? "Internal server error" : shape.message, data };
  },
});

export const router = t.router;
export const middleware = t.middleware;

/**
 * Every procedure starts here: AppErrors leave as TRPCErrors carrying the original, and a
 * success gets the status its meta declares (the document reads the same field), unless the
 * handler chose one of its declared `statuses`.
 */
export const baseProcedure = t.procedure.use(async ({ ctx, meta, next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    throw toTrpcError(result.error.cause);
  }
  // An unreachable database is a 503 on `/trpc` too (REST maps it in the envelope layer).
  if (!result.ok && isDatabaseUnavailable(result.error.cause)) {
    throw toTrpcError(databaseUnavailable());
  }
  if (result.ok && meta?.status) ctx.response.status ??= meta.status;
  return result;
});
