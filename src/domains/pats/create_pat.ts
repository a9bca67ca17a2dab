import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import { createdPatSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /api/personal-access-tokens: 201 with the plaintext `token`, shown only here. */
export const createPat = userProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/personal-access-tokens",
      tags: ["personal-access-tokens"],
      summary: "Create a personal access token",
      errorResponses: {
        400: "Empty or over-long name, or expiresAt not in the future",
        401: "Unauthorized",
        403: "Called with a personal access token",
      },
    },
    status: 201,
  })
  .input(withExample(
    z.object({
      // Characters are code points: zod's max() counts UTF-16 units, so an emoji would count
      // twice.
      name: z.string().trim().min(1, "must not be empty")
        .refine((s) => [...s].length <= 100, "must be at most 100 characters")
        .meta({ maxLength: 100 }),
      expiresAt: z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" })
        .optional(),
    }),
    // No expiresAt: a fixed date would be in the past one day, and "Try it out" would fail.
    { name: "my script" },
  ))
  .output(createdPatSchema)
  .mutation(({ ctx, input }) => {
    const { userId, sessionId } = ctx.caller;
    // A take-over of the account that commits meanwhile ends this session: no PAT outlives it.
    return ctx.services.accounts.whileSessionLives(
      userId,
      sessionId,
      (trx) => ctx.services.pats.create(userId, input, trx),
    );
  });
