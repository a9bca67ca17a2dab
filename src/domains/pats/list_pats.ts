import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import { patSchema } from "./views.ts";

/** GET /api/personal-access-tokens: the caller's tokens, without their secrets. */
export const listPats = userProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/personal-access-tokens",
      tags: ["personal-access-tokens"],
      summary: "List personal access tokens",
      errorResponses: { 401: "Unauthorized", 403: "Called with a personal access token" },
    },
  })
  .input(z.void())
  .output(z.array(patSchema))
  .query(({ ctx }) => ctx.services.pats.list(ctx.caller.userId));
