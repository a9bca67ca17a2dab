import { z } from "zod";
import { publicProcedure } from "../../infra/trpc/auth.ts";
import { authResultSchema } from "../accounts/views.ts";
import { clientOf } from "../accounts/inputs.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /auth/oauth/apple/native: Apple sign-in from the iOS app; token pair + user (SPEC 4.2). */
export const appleNative = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/auth/oauth/apple/native",
      tags: ["identity-providers"],
      summary: "Sign in with an Apple identity token from the app",
      errorResponses: {
        400: "Invalid body or missing identityToken",
        401: "Identity token signature invalid or nonce mismatch",
        501: "APPLE_BUNDLE_ID is not configured",
      },
    },
  })
  .input(withExample(
    z.object({
      identityToken: z.string().min(1).max(16_384),
      authorizationCode: z.string().min(1).max(4096).optional(),
      nonce: z.string().max(1024).optional(),
      fullName: z.object({
        givenName: z.string().max(200).nullish(),
        familyName: z.string().max(200).nullish(),
      }).nullish(),
    }),
    {
      identityToken: "eyJraWQiOiJXNldjT0tCIiwiYWxnIjoiUlMyNTYifQ.eyJpc3MiOiJodHRwczovL2FwcGxlaWQu" +
        "YXBwbGUuY29tIiwiYXVkIjoiY29tLmV4YW1wbGUuZGRzIiwic3ViIjoiMDAxMjM0LmFiY2RlZiJ9.c2lnbmF0dXJl",
      authorizationCode: "c5d2e8f1a0b94c3e8d7f6a5b4c3d2e1f0.0.rrsx.Kq3v9ZbT1nY",
      nonce: "b2a9c1f0-7d6e-4c5b-8a9f-0e1d2c3b4a59",
      fullName: { givenName: "Ada", familyName: "Lovelace" },
    },
  ))
  .output(authResultSchema)
  .mutation(({ ctx, input }) => ctx.services.oauth.appleNative(input, clientOf(ctx)));
