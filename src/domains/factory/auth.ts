/**
 * Factory authentication for procedures (SPEC 5.7). Factory principals are static bearer tokens
 * from FACTORY_PRINCIPALS; user JWTs and PATs are never principals, so they get 401 here, and
 * factory tokens are neither JWTs nor PATs, so the user API answers them 401 too. The role of
 * each operation and the audit of refusals are in `access.ts`.
 */
import type { Access, StatusDocs } from "../../infra/http/operation.ts";
import { type ApiMeta, baseProcedure } from "../../infra/trpc/init.ts";
import type { RawAuth } from "../../infra/http/raw.ts";
import { ANY, type Operation, OPERATIONS } from "./access.ts";
import type { Principal, Role } from "./principals.ts";

/**
 * What `FactoryAccess.authenticate` answers for `operation`, for the document: 401 always, 403
 * when some role may not run it (SPEC 4.8's role column, from the same table).
 */
export function factoryAccess(operation: Operation): Access {
  const roles: readonly Role[] = OPERATIONS[operation].roles;
  const errors: StatusDocs = { 401: "Missing or unknown factory token" };
  if (!ANY.every((role) => roles.includes(role))) {
    errors[403] = `Role other than ${roles.join(" or ")}`;
  }
  return { credentials: ["factory"], errors };
}

/** The same check for a raw route (file downloads, CSV import): 401/403 before any read. */
export function factoryAuth(operation: Operation): RawAuth<Principal> {
  return {
    access: factoryAccess(operation),
    check: (ctx) => ctx.services.factory.access.authenticate(ctx.bearer, operation),
  };
}

/** A procedure for `operation`: its principal, or 401/403 from `FactoryAccess.authenticate`. */
export function factoryProcedure(operation: Operation) {
  // An AppError thrown here reaches `baseProcedure`, which turns it into the TRPCError.
  return baseProcedure.meta({ access: factoryAccess(operation) }).use(async ({ ctx, next }) => {
    const principal = await ctx.services.factory.access.authenticate(ctx.bearer, operation);
    return next({ ctx: { ...ctx, principal } });
  });
}

/**
 * OpenAPI meta of a factory procedure: `errorResponses` are the statuses its handler answers
 * (the token check's 401/403, 400 for input and 500 are added by the document); `more` adds
 * other `openapi` fields (`requestHeaders`, `description`). A success other than 200 is spread
 * beside it: `.meta({ ...factoryMeta(…), status: 201 })`.
 */
export function factoryMeta(
  method: "GET" | "POST",
  path: string,
  summary: string,
  errorResponses: StatusDocs = {},
  more: Omit<NonNullable<ApiMeta["openapi"]>, "method" | "path"> = {},
): ApiMeta {
  return {
    openapi: {
      method,
      path: `/internal/factory${path}`,
      tags: ["factory"],
      summary,
      errorResponses,
      ...more,
    },
  };
}
