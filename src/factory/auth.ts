/**
 * Factory authentication for procedures (SPEC 5.7). Factory principals are static bearer tokens
 * from FACTORY_PRINCIPALS; user JWTs and PATs are never principals, so they get 401 here, and
 * factory tokens are neither JWTs nor PATs, so the user API answers them 401 too. The role of
 * each operation and the audit of refusals are in `access.ts`.
 */
import type { OpenApiMeta } from "trpc-to-openapi";
import { baseProcedure } from "../trpc/init.ts";
import type { RawAuth } from "../http/raw.ts";
import type { Operation } from "./access.ts";
import type { Principal } from "./principals.ts";

/** The factory scheme of the OpenAPI document. */
const SECURITY = ["Authorization"];

/** The same check for a raw route (file downloads, CSV import): 401/403 before any read. */
export function factoryAuth(operation: Operation): RawAuth<Principal> {
  return {
    security: SECURITY,
    check: (ctx) => ctx.services.factory.access.authenticate(ctx.bearer, operation),
  };
}

/** A procedure for `operation`: its principal, or 401/403 from `FactoryAccess.authenticate`. */
export function factoryProcedure(operation: Operation) {
  // An AppError thrown here reaches `baseProcedure`, which turns it into the TRPCError.
  return baseProcedure.use(async ({ ctx, next }) => {
    const principal = await ctx.services.factory.access.authenticate(ctx.bearer, operation);
    return next({ ctx: { ...ctx, principal } });
  });
}

/** OpenAPI meta of a factory procedure. */
export function factoryMeta(
  method: "GET" | "POST",
  path: string,
  summary: string,
  errorResponses: Record<number, string> = {},
): OpenApiMeta {
  return {
    openapi: {
      method,
      path: `/internal/factory${path}`,
      tags: ["factory"],
      summary,
      protect: true,
      errorResponses: { 401: "Missing or unknown factory token", ...errorResponses },
    },
  };
}
