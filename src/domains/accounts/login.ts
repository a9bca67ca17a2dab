import { z } from "zod";
import { publicProcedure } from "../../infra/trpc/auth.ts";
import { clientOf } from "./inputs.ts";
import { authResultSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /auth/login by email or username: 200 token pair + user; 401 for bad credentials. */
export const login = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/auth/login",
      tags: ["accounts"],
      summary: "Log in with email or username and password",
      errorResponses: {
        400: "Missing fields",
        401: "Invalid credentials",
        429: "Too many failed password checks for this account or address; see Retry-After",
      },
    },
  })
  .input(
    // No maximum here: an over-long identifier or password is a wrong one, 401 (SPEC 4.1).
    withExample(
      z.object({ identifier: z.string().min(1), password: z.string().min(1) }),
      { identifier: "ada", password: "correct horse" },
    ),
  )
  .output(authResultSchema)
  .mutation(({ ctx, input }) => ctx.services.accounts.login(input, clientOf(ctx)));
