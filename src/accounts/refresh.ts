import { z } from "zod";
import { publicProcedure } from "../trpc/auth.ts";
import { clientOf } from "./inputs.ts";
import { tokenPairSchema } from "./views.ts";

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
  .input(z.object({ refreshToken: z.string() }))
  .output(tokenPairSchema)
  .mutation(({ ctx, input }) => ctx.services.accounts.refresh(input.refreshToken, clientOf(ctx)));
