/**
 * Error envelopes (SPEC 7): `{"error": message}` on the main API and the factory console;
 * `{"error": {code, message, requestId}}` on `/api/sdk/v1` and, by our decision, `/api/app/v1`.
 */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { AppError, ERROR_STATUS, type ErrorCode } from "../../errors.ts";
import { databaseUnavailable, isDatabaseUnavailable, isUnstorableText } from "../db/errors.ts";
import type { Log } from "../lib/log.ts";

export type Envelope = "main" | "versioned";

/** Which envelope a path answers with. */
export function envelopeOf(path: string): Envelope {
  return path.startsWith("/api/sdk/v1") || path.startsWith("/api/app/v1") ? "versioned" : "main";
}

/** The error body of the main API and the factory console (SPEC 7). */
export const errorSchema = z.object({
  error: z.string().meta({ description: "What went wrong, in a sentence" }),
}).meta({ id: "Error", description: "Error body of the main API and the factory console" });

/** The error body of `/api/sdk/v1` and `/api/app/v1` (SPEC 7). */
export const versionedErrorSchema = z.object({
  error: z.object({
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    requestId: z.string().meta({ description: "The request's X-Request-Id" }),
  }),
}).meta({ id: "VersionedError", description: "Error body of /api/sdk/v1 and /api/app/v1" });

/** The error body schema of the surface a path belongs to. */
export function errorSchemaOf(path: string): typeof errorSchema | typeof versionedErrorSchema {
  return envelopeOf(path) === "versioned" ? versionedErrorSchema : errorSchema;
}

/** Renders an AppError in the given envelope. */
export function errorResponse(envelope: Envelope, error: AppError, requestId: string): Response {
  const body: z.output<typeof errorSchema> | z.output<typeof versionedErrorSchema> =
    envelope === "versioned"
      ? { error: { code: error.code, message: error.message, requestId } }
      : { error: error.message };
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { "content-type": "application/json", ...error.headers },
  });
}

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

/**
 * The one error log of the HTTP layer, for REST, raw routes and `/trpc` alike: a failure the
 * caller sees as a 500 is logged with its cause and stack; every other status is an expected
 * answer that the request line already records.
 */
export function reportFailure(
  log: Pick<Log, "error">,
  request: { requestId: string; path: string },
  error: unknown,
): void {
  if (toAppError(error).status !== 500) return;
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  log.error("request failed", {
    ...request,
    error: String(cause),
    stack: cause instanceof Error ? cause.stack : undefined,
  });
}

/** Turns anything thrown into an AppError; unknown errors become a logged 500. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const dbError = error instanceof TRPCError ? error.cause : error;
  if (isUnstorableText(dbError)) {
    return new AppError("invalid_request", "Text fields must not contain NUL characters");
  }
  if (isDatabaseUnavailable(dbError)) return databaseUnavailable();
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    const issues = (error.cause as { issues?: ZodIssueLike[] } | undefined)?.issues;
    if (error.code === "BAD_REQUEST" && Array.isArray(issues) && issues.length) {
      const issue = issues[0];
      const field = issue.path.map(String).join(".");
      return new AppError("invalid_request", field ? `${field}: ${issue.message}` : issue.message);
    }
    if (error.code === "PARSE_ERROR") {
      return new AppError("invalid_request", "Request body is not valid JSON");
    }
    if (error.code === "UNSUPPORTED_MEDIA_TYPE") {
      return new AppError("invalid_request", "Content-Type must be application/json");
    }
    if (error.code === "NOT_FOUND") return new AppError("not_found", "Not found");
    if (error.code === "BAD_REQUEST") return new AppError("invalid_request", error.message);
  }
  return new AppError("internal", "Internal server error");
}
