/**
 * May this caller touch this user resource (SPEC 5.8, CONTRACT.md "Who may call what"): the one
 * place that decides what a miss answers. Every domain's owner check goes through `owned` (a row
 * read by id, its owner compared here) or `missing` (a lookup whose SQL already filters on the
 * caller, so no row means "not there or not yours").
 *
 * A kind of resource is declared once, by the domain that answers for it, beside the code that
 * checks it: `hidden("push", "Push not found")` for the rule of every kind but one (another
 * user's resource is 404 like an unknown one: no existence oracle), `resource("device", …)` for a
 * device, whose owner endpoints answer 403 for a device of another user and 404 for an unknown
 * one (SPEC 4.5). There is no table here to add a row to (issue 35): a domain cannot forget one.
 * Deny by default: a kind not declared through these functions, a row without an owner and an
 * owner that is not the caller are all refused. Like Immich's access module (one switch over
 * permissions, refusal as the default case), but per resource kind, since this service has no
 * sharing: ownership is the only grant.
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

/** A kind of user resource and what it answers when it is not the caller's. */
export interface Resource extends Rule {
  /** Its name, unique across the service (`device`, `push`, …). */
  readonly kind: string;
}

/** Every declared kind by name: a kind is declared once, and only a declared one grants. */
const DECLARED = new Map<string, Resource>();

/** Declares a kind of resource with its two answers; a name declared twice stops the start. */
export function resource(kind: string, rule: Rule): Resource {
  if (DECLARED.has(kind)) throw new Error(`resource kind "${kind}" is declared twice`);
  const declared: Resource = Object.freeze({ kind, ...rule });
  DECLARED.set(kind, declared);
  return declared;
}

/** Declares a kind whose other users' rows answer like unknown ones: 404 (SPEC 5.8). */
export function hidden(kind: string, message: string, code: ErrorCode = "not_found"): Resource {
  return resource(kind, { missing: { code, message }, notOwned: { code, message } });
}

/** The kinds declared so far (by the modules loaded), for the tests that hold the rule. */
export function declaredResources(): readonly Resource[] {
  return [...DECLARED.values()];
}

/** The refusal for a kind not declared here: 404, saying nothing. */
const UNKNOWN: Rule = {
  missing: { code: "not_found", message: "Not found" },
  notOwned: { code: "not_found", message: "Not found" },
};

function ruleOf(kind: Resource): Rule {
  const declared = typeof kind?.kind === "string" ? DECLARED.get(kind.kind) : undefined;
  return declared !== undefined && declared === kind ? declared : UNKNOWN;
}

function refuse(refusal: Refusal, message?: string): AppError {
  return new AppError(refusal.code, message ?? refusal.message);
}

/**
 * The error for a resource that is not there, or that a caller-filtered lookup did not return.
 * `message` overrides the kind's wording where an endpoint documents its own (same status).
 */
export function missing(kind: Resource, message?: string): AppError {
  return refuse(ruleOf(kind).missing, message);
}

/**
 * The row when `userId` owns it; otherwise the kind's refusal (404 for an absent row, the
 * kind's answer for another owner's). An unknown kind is refused even for the owner.
 */
export function owned<T extends { owner_id?: string | null; user_id?: string | null }>(
  kind: Resource,
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
export function found<T>(kind: Resource, row: T | null | undefined, message?: string): T {
  if (row === null || row === undefined) throw missing(kind, message);
  return row;
}
