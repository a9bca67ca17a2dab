/**
 * May this caller touch this user resource (SPEC 5.8, CONTRACT.md "Who may call what"): the one
 * place that decides what a miss answers. Every domain's owner check goes through `owned` (a row
 * read by id, its owner compared here) or `missing` (a lookup whose SQL already filters on the
 * caller, so no row means "not there or not yours").
 *
 * The rule per kind is `RESOURCES`: another user's resource is 404 like an unknown one (no
 * existence oracle), except a device, whose owner endpoints answer 403 for a device of another
 * user and 404 for an unknown one (SPEC 4.5). Deny by default: a kind not in the table, a row
 * without an owner and an owner that is not the caller are all refused. Like Immich's access
 * module (one switch over permissions, refusal as the default case), but per resource kind,
 * since this service has no sharing: ownership is the only grant.
 */
import { AppError, type ErrorCode } from "../../errors.ts";

interface Refusal {
  code: ErrorCode;
  message: string;
}

interface Rule {
  /** Unknown id (and, for a SQL-filtered lookup, another user's). */
  missing: Refusal;
  /** Known id of another user; the same as `missing` unless the SPEC says 403. */
  notOwned: Refusal;
}

const hidden = (message: string, code: ErrorCode = "not_found"): Rule => ({
  missing: { code, message },
  notOwned: { code, message },
});

/** What each kind of user resource answers when it is not the caller's. */
export const RESOURCES = {
  device: {
    missing: { code: "not_found", message: "Device not found" },
    notOwned: { code: "forbidden", message: "You do not own this device" },
  },
  session: hidden("Session not found"),
  pat: hidden("Token not found"),
  push: hidden("Push not found"),
  rawItem: hidden("Raw item not found"),
  analyzeRun: hidden("Analyze run not found"),
  file: hidden("File not found"),
  upload: hidden("Upload not found"),
  content: hidden("Content not found"),
  presentation: hidden("Presentation not found", "presentation_not_found"),
  webhook: hidden("Webhook not found"),
} as const satisfies Record<string, Rule>;

/** A kind of user resource (a key of RESOURCES). */
export type ResourceKind = keyof typeof RESOURCES;

/** The refusal for a kind not in the table: 404, saying nothing. */
const UNKNOWN: Rule = hidden("Not found");

function ruleOf(kind: ResourceKind): Rule {
  return Object.hasOwn(RESOURCES, kind) ? RESOURCES[kind] : UNKNOWN;
}

function refuse(refusal: Refusal, message?: string): AppError {
  return new AppError(refusal.code, message ?? refusal.message);
}

/**
 * The error for a resource that is not there, or that a caller-filtered lookup did not return.
 * `message` overrides the table's wording where an endpoint documents its own (same status).
 */
export function missing(kind: ResourceKind, message?: string): AppError {
  return refuse(ruleOf(kind).missing, message);
}

/**
 * The row when `userId` owns it; otherwise the kind's refusal (404 for an absent row, the
 * table's answer for another owner's). An unknown kind is refused even for the owner.
 */
export function owned<T extends { owner_id?: string | null; user_id?: string | null }>(
  kind: ResourceKind,
  row: T | null | undefined,
  userId: string,
): T {
  const rule = ruleOf(kind);
  if (!row) throw refuse(rule.missing);
  if (rule === UNKNOWN) throw refuse(rule.notOwned);
  const owner = row.owner_id !== undefined ? row.owner_id : row.user_id;
  if (typeof owner !== "string" || owner === "" || owner !== userId) throw refuse(rule.notOwned);
  return row;
}

/** `row` itself when a caller-filtered lookup found it, the kind's 404 otherwise. */
export function found<T>(kind: ResourceKind, row: T | null | undefined, message?: string): T {
  if (row === null || row === undefined) throw missing(kind, message);
  return row;
}
