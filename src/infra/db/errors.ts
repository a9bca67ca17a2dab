import { AppError } from "../../errors.ts";

/** Recognises PostgreSQL errors by SQLSTATE; postgres.js and PGlite both expose `code`. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as {
    code?: string;
    constraint_name?: string;
    constraint?: string;
    message?: string;
  };
  if (e?.code !== "23505") return false;
  if (!constraint) return true;
  const name = e.constraint_name ?? e.constraint ?? "";
  return name === constraint || (e.message ?? "").includes(constraint);
}

/**
 * Text PostgreSQL cannot store: a NUL character (`\u0000`) in a text or jsonb value
 * (SQLSTATE 22021 character_not_in_repertoire, 22P05 untranslatable_character). It comes from
 * client input, so it is a 400, not a 500.
 */
export function isUnstorableText(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === "22021" || code === "22P05";
}

/** postgres.js and Node socket error codes that mean "the server is not reachable right now". */
const UNREACHABLE_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of a server that is going away or not accepting work: class 08 (connection
 * exception), 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300
 * too_many_connections.
 */
function isUnavailableState(code: string): boolean {
  return code.startsWith("08") || ["57P01", "57P02", "57P03", "53300"].includes(code);
}

/**
 * True when a failure means the database cannot be reached (down, restarting, refusing
 * connections), not that the query was wrong: the request answers 503, not 500. Looks through
 * `cause` and the `errors` of an AggregateError (a host name resolving to several addresses).
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== "object" || error === null) return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === "string" && (UNREACHABLE_CODES.has(e.code) || isUnavailableState(e.code))) {
    return true;
  }
  // node-postgres (pg-boss's driver) says it in words only.
  if (typeof e.message === "string" && /^Connection terminated/i.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x, depth + 1))) {
    return true;
  }
  return isDatabaseUnavailable(e.cause, depth + 1);
}

/**
 * The answer while PostgreSQL cannot be reached (restart, failover, outage): 503 in the surface's
 * envelope with a hint when to retry, never a 500 or a hang (docs/operations.md "Faults").
 */
export function databaseUnavailable(): AppError {
  return new AppError("unavailable", "Service temporarily unavailable, try again shortly", {
    "Retry-After": "5",
  });
}
