/**
 * Factory authentication and role checks (SPEC 5.7). Factory principals are static bearer tokens
 * from FACTORY_PRINCIPALS; user JWTs and PATs are never principals, so they get 401 here, and
 * factory tokens are neither JWTs nor PATs, so the user API answers them 401 too.
 */
import type { OpenApiMeta } from "trpc-to-openapi";
import { AppError, forbidden, unauthorized } from "../errors.ts";
import type { Services } from "../services.ts";
import { baseProcedure, toTrpcError } from "../trpc/init.ts";
import { writeAudit } from "./audit.ts";
import { findPrincipal, type Principal, type Role } from "./principals.ts";

/**
 * The principal behind a bearer that holds one of `roles`. A missing or unknown bearer is 401,
 * a known principal with another role 403; both are written to the audit log.
 */
export async function authenticateFactory(
  services: Services,
  bearer: string | null,
  roles: readonly Role[],
  action: string,
): Promise<Principal> {
  const principal = bearer ? findPrincipal(services.config.factoryPrincipals, bearer) : null;
  if (!principal) {
    await writeAudit(services.db, null, {
      action,
      result: "denied",
      detail: { reason: bearer ? "unknown bearer" : "missing bearer" },
    });
    throw unauthorized(bearer ? "Unauthorized" : "Missing bearer token");
  }
  if (!roles.includes(principal.role)) {
    await writeAudit(services.db, principal, {
      action,
      result: "denied",
      detail: { reason: `role ${principal.role} is not allowed` },
    });
    throw forbidden(`Role ${principal.role} cannot ${action.replaceAll("_", " ")}`);
  }
  return principal;
}

/** A procedure for the given roles; `action` names it in the audit log of refusals. */
export function factoryProcedure(roles: readonly Role[], action: string) {
  return baseProcedure.use(async ({ ctx, next }) => {
    try {
      const principal = await authenticateFactory(ctx.services, ctx.bearer, roles, action);
      return next({ ctx: { ...ctx, principal } });
    } catch (error) {
      if (error instanceof AppError) throw toTrpcError(error);
      throw error;
    }
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
