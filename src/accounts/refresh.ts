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
  .input(z.object({ refreshToken: z.string().min(1).max(512) }))
  .output(tokenPairSchema)
  .mutation(({ ctx, input }) => ctx.services.accounts.refresh(input.refreshToken, clientOf(ctx)));
