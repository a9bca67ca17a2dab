/**
 * The one error type of the service. A closed set of codes, each with its HTTP status; the
 * HTTP layer maps it to the wire envelope of the surface (SPEC 7).
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  plan_upgrade_required: 403,
  not_found: 404,
  presentation_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  invalid_state: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * An error whose message is safe to show to the caller. One under 500 is an expected answer
 * (401, 404, ...): it carries no stack trace, because capturing one, and above all formatting it
 * (tRPC copies `cause.stack` into its TRPCError, and Deno source-maps every frame), was the
 * largest cost of a refused request (issue 13). A 5xx keeps its stack for the failure log.
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    const limit = Error.stackTraceLimit;
    if (ERROR_STATUS[code] < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = "AppError";
    this.status = ERROR_STATUS[code];
  }
}

/**
 * `make()` with no stack trace captured: for the wrappers an expected answer passes through
 * (tRPC's TRPCError around a 4xx AppError), which would otherwise capture one each.
 */
export function withoutStack<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Shorthands for the common cases, so call sites read as the rule they enforce. */
export const badRequest = (message: string) => new AppError("invalid_request", message);
export const unauthorized = (message = "Unauthorized") => new AppError("unauthorized", message);
export const forbidden = (message = "Forbidden") => new AppError("forbidden", message);
export const notFound = (message = "Not found") => new AppError("not_found", message);
export const conflict = (message: string) => new AppError("conflict", message);
