/**
 * Authentication middlewares. Authorization denies by default: a procedure names the credential
 * kinds it accepts, and anything else is refused before its body runs.
 */
import { AppError, forbidden, unauthorized } from "../errors.ts";
import type { Caller } from "../services.ts";
import { baseProcedure, toTrpcError } from "./init.ts";

type Kind = Caller["kind"];

const WRONG_KIND: Record<Kind, string> = {
  user: "Personal access tokens cannot be used here",
  pat: "This endpoint accepts personal access tokens only",
};

function requireCaller(kinds: readonly Kind[]) {
  return baseProcedure.use(async ({ ctx, next }) => {
    try {
      if (!ctx.bearer) throw unauthorized("Missing bearer token");
      const caller = await ctx.services.auth.authenticate(ctx.bearer);
      // SPEC 5.5: one 401 for every bad credential, no reason given.
      if (!caller) throw unauthorized();
      if (!kinds.includes(caller.kind)) {
        throw forbidden(WRONG_KIND[caller.kind === "pat" ? "user" : "pat"]);
      }
      const renewed = await ctx.services.auth.renewal(caller);
      if (renewed) ctx.response.headers["X-Renewed-Token"] = renewed;
      return next({ ctx: { ...ctx, caller } });
    } catch (error) {
      if (error instanceof AppError) throw toTrpcError(error);
      throw error;
    }
  });
}

/** Needs a user access token (session endpoints, PAT management, `/api/app/v1`). */
export const userProcedure = requireCaller(["user"]);
/** Needs a user access token or a PAT (the unversioned `/api` resources). */
export const userOrPatProcedure = requireCaller(["user", "pat"]);
/** Needs a PAT (`/api/sdk/v1`). */
export const patProcedure = requireCaller(["pat"]);
/** No credential. */
export const publicProcedure = baseProcedure;
