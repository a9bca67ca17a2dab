import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import { forbidden } from "../../errors.ts";
import { clientOf, passwordInput, usernameInput } from "./inputs.ts";
import { userSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** PUT /auth/me: change username and/or password (the latter needs `currentPassword`). */
export const updateMe = userProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/auth/me",
      tags: ["accounts"],
      summary: "Update the signed-in user",
      errorResponses: {
        400: "Invalid fields or missing currentPassword",
        401: "Unauthorized or incorrect current password",
        429: "Too many failed password checks; see Retry-After",
        409: "Username taken",
      },
    },
  })
  .input(withExample(
    z.object({
      username: usernameInput.optional(),
      password: passwordInput.optional(),
      currentPassword: z.string().optional(), // any length: a wrong one is 401
    }),
    { username: "ada.lovelace" },
  ))
  .output(userSchema)
  .mutation(({ ctx, input }) => {
    const { caller } = ctx;
    // userProcedure admits user access tokens only; this narrows the type to find the session
    // a password change keeps.
    if (caller.kind !== "user") throw forbidden();
    return ctx.services.accounts.updateMe(caller.userId, caller.sessionId, input, clientOf(ctx));
  });
