import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userProcedure } from "../../infra/trpc/auth.ts";

/** DELETE /api/personal-access-tokens/{id}: 204, immediate and idempotent; 404 if not the caller's. */
export const revokePat = userProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/personal-access-tokens/{id}",
      tags: ["personal-access-tokens"],
      summary: "Revoke a personal access token",
      successDescription: "Revoked (no body)",
      errorResponses: {
        400: "id is not a UUID",
        401: "Unauthorized",
        403: "Called with a personal access token",
        404: "No token of the caller has this id",
      },
    },
    status: 204,
  })
  .input(z.object({ id: uuidParam }))
  .output(z.void())
  .mutation(async ({ ctx, input }) => {
    await ctx.services.pats.revoke(ctx.caller.userId, input.id);
  });
