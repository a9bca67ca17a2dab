import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import { messageSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /auth/logout: ends the caller's session and revokes the given refresh token. */
export const logout = userProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/auth/logout",
      tags: ["accounts"],
      summary: "Log out",
      errorResponses: { 401: "Unauthorized" },
    },
  })
  .input(withExample(z.object({ refreshToken: z.string().optional() }), {
    refreshToken: "rt_2LLCVs4b7yBbTyKzUvpHq9Vr9bU5xoLndRZEvH5XemI",
  }))
  .output(messageSchema)
  .mutation(async ({ ctx, input }) => {
    const caller = ctx.caller;
    const sessionId = caller.kind === "user" ? caller.sessionId : undefined;
    await ctx.services.accounts.logout(caller.userId, sessionId, input.refreshToken);
    return { message: "Logged out" };
  });
