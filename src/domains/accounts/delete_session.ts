import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import * as access from "../../infra/access/mod.ts";
import { SESSION } from "./service.ts";
import { isUuid } from "../../infra/lib/ids.ts";
import { messageSchema } from "./views.ts";

/** DELETE /auth/sessions/{id}: ends a session at once; 404 when missing or not the caller's. */
export const deleteSession = userProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/auth/sessions/{id}",
      tags: ["accounts"],
      summary: "End a session",
      errorResponses: { 401: "Unauthorized", 404: "Session not found" },
    },
  })
  .input(z.object({ id: z.string() }))
  .output(messageSchema)
  .mutation(async ({ ctx, input }) => {
    if (!isUuid(input.id)) throw access.missing(SESSION);
    await ctx.services.accounts.deleteSession(ctx.caller.userId, input.id);
    return { message: "Session deleted" };
  });
