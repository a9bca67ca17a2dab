import { z } from "zod";
import type { Surface } from "../../infra/trpc/surfaces.ts";
import { userSchema } from "./views.ts";

/**
 * GET {prefix}/me: who the credential acts for. Not in SPEC 4.7; SDK scripts use it to check a
 * token before they start (docs/decisions.md).
 */
export const versionedMe = (surface: Surface) =>
  surface.procedure
    .meta({
      openapi: {
        method: "GET",
        path: `${surface.prefix}/me`,
        tags: [surface.name],
        summary: "The user this credential acts for",
        errorResponses: { 401: "Unauthorized", 403: "Wrong kind of credential for this surface" },
      },
    })
    .input(z.void())
    .output(userSchema)
    .query(async ({ ctx }) => {
      const { oauthAccounts: _links, subscription: _sub, ...user } = await ctx.services.accounts
        .getMe(ctx.caller.userId);
      return user;
    });
