/**
 * Authentication middlewares. Authorization denies by default: a procedure names the credential
 * kinds it accepts, and anything else is refused before its body runs.
 */
import type { Caller } from "../../caller.ts";
import { callerAccess, PUBLIC_ACCESS } from "../http/operation.ts";
import { baseProcedure } from "./init.ts";

function requireCaller<K extends Caller["kind"]>(kinds: readonly K[]) {
  // The same `kinds` are checked below and documented (security, 401/403) from the meta.
  // An AppError thrown here reaches `baseProcedure`, which turns it into the TRPCError.
  return baseProcedure.meta({ access: callerAccess(kinds) }).use(async ({ ctx, next }) => {
    // The shared check (raw routes call the same `require`).
    const caller = await ctx.services.auth.require(ctx.bearer, kinds) as Extract<
      Caller,
      { kind: K }
    >;
    const renewed = await ctx.services.auth.renewal(caller);
    if (renewed) ctx.response.headers["X-Renewed-Token"] = renewed;
    return next({ ctx: { ...ctx, caller } });
  });
}

/**
 * Needs a user access token: `/auth/*` (account, sessions, billing stay with an interactive
 * login), PAT management and `/api/app/v1` (CONTRACT.md "Who may call what").
 */
export const userProcedure = requireCaller(["user"]);
/**
 * A user access token or a PAT acting as its user: the unversioned `/api/*` resources (devices,
 * binding, pushes; CONTRACT.md, SPEC 5.4 "no scopes or separate isolation").
 */
export const userOrPatProcedure = requireCaller(["user", "pat"]);
/** Needs a PAT (`/api/sdk/v1`). */
export const patProcedure = requireCaller(["pat"]);
/**
 * The base procedures of the two versioned surfaces: one credential kind each, typed alike so
 * one procedure definition mounts on both (SPEC 4.7).
 */
export const surfaceProcedures = {
  app: requireCaller<Caller["kind"]>(["user"]),
  sdk: requireCaller<Caller["kind"]>(["pat"]),
};
/** No credential (documented with `security: []`). */
export const publicProcedure = baseProcedure.meta({ access: PUBLIC_ACCESS });
