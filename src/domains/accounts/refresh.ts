import { z } from "zod";
import { publicProcedure } from "../../infra/trpc/auth.ts";
import { clientOf } from "./inputs.ts";
import { tokenPairSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /auth/refresh: rotates the refresh token; 401 when invalid, expired or already used. */
export const refresh = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/auth/refresh",
      tags: ["accounts"],
      summary: "Rotate a refresh token for a new token pair",
      errorResponses: { 401: "Invalid, expired or already used refresh token" },
    },
  })
  // Any string: an empty or over-long token is just an invalid one, 401 like any other (SPEC 4.1).
  .input(withExample(z.object({ refreshToken: z.string() }), {
    refreshToken: "rt_2LLCVs4b7yBbTyKzUvpHq9Vr9bU5xoLndRZEvH5XemI",
  }))
  .output(tokenPairSchema)
  .mutation(({ ctx, input }) => ctx.services.accounts.refresh(input.refreshToken, clientOf(ctx)));
