/**
 * DELETE /auth/account (SPEC 4.1). A raw route: trpc-to-openapi ignores DELETE bodies, and this
 * one carries `{confirm, password}`.
 */
import { z } from "zod";
import { notFound } from "../../errors.ts";
import { callerAuth, defineRawRoute } from "../../infra/http/raw.ts";

export const deleteAccount = defineRawRoute({
  method: "DELETE",
  path: "/auth/account",
  operationId: "accounts-deleteAccount",
  summary: "Delete the account permanently",
  tags: ["accounts"],
  // The shared session check of every route: a token of an ended session (logout, session
  // deletion, refresh reuse, password change) is 401. SPEC 4.1 "second call 404": only a valid
  // token whose user is gone is told 404. Checked before the body is read.
  auth: callerAuth(["user"], { userGone: () => notFound("User no longer exists") }),
  body: {
    kind: "json",
    schema: z.object({
      confirm: z.literal(true, "must be true"),
      // Any length: a wrong password is 401, whatever its size.
      password: z.string().optional(),
    }),
    example: { confirm: true, password: "correct horse" },
  },
  responses: {
    204: { description: "Deleted" },
    400: { description: "confirm not true or malformed body" },
    401: { description: "Missing or invalid token, or incorrect password" },
    404: { description: "User no longer exists" },
    429: { description: "Too many failed password checks; see Retry-After" },
    500: { description: "Provider revocation or subscription cancellation failed" },
  },
  async handle({ ctx, auth, body }) {
    await ctx.services.accountDeletion.delete(auth.userId, body.password, ctx.ip);
    return new Response(null, { status: 204 });
  },
});
