import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import { sessionSchema } from "./views.ts";

/** GET /auth/sessions: the caller's sessions, most recently used first. */
export const listSessions = userProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/auth/sessions",
      tags: ["accounts"],
      summary: "List sessions",
      errorResponses: { 401: "Unauthorized" },
    },
  })
  .input(z.void())
  .output(z.array(sessionSchema))
  .query(({ ctx }) => ctx.services.accounts.listSessions(ctx.caller.userId));
