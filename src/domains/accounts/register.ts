import { z } from "zod";
import { publicProcedure } from "../../infra/trpc/auth.ts";
import { clientOf, emailInput, passwordInput, usernameInput } from "./inputs.ts";
import { authResultSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /auth/register: 201 token pair + user; 409 when the email or username is taken. */
export const register = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/auth/register",
      tags: ["accounts"],
      summary: "Create an account",
      successDescription: "Created",
      errorResponses: { 400: "Invalid fields", 409: "Email or username taken" },
    },
    status: 201,
  })
  .input(withExample(
    z.object({ email: emailInput, username: usernameInput, password: passwordInput }),
    { email: "ada@example.com", username: "ada", password: "correct horse" },
  ))
  .output(authResultSchema)
  .mutation(({ ctx, input }) => ctx.services.accounts.register(input, clientOf(ctx)));
