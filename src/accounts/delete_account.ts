/**
 * DELETE /auth/account (SPEC 4.1). A raw route: trpc-to-openapi ignores DELETE bodies, and this
 * one carries `{confirm, password}`.
 */
import { z } from "zod";
import { AppError, notFound } from "../errors.ts";
import { readJson } from "../http/body.ts";
import type { RawRoute } from "../http/raw.ts";

const body = z.object({
  confirm: z.literal(true, "confirm must be true"),
  password: z.string().optional(), // any length: a wrong password is 401, whatever its size
});

export const deleteAccount: RawRoute = {
  method: "DELETE",
  path: "/auth/account",
  async handle(req, ctx) {
    // The shared session check of every route: a token of an ended session (logout, session
    // deletion, refresh reuse, password change) is 401. SPEC 4.1 "second call 404": only a
    // valid token whose user is gone is told 404. Checked before the body is read.
    const caller = await ctx.services.auth.require(ctx.bearer, ["user"], {
      userGone: () => notFound("User no longer exists"),
    });
    const parsed = body.safeParse(await readJson(req));
    if (!parsed.success) {
      throw new AppError("invalid_request", parsed.error.issues[0]?.message ?? "Invalid body");
    }
    await ctx.services.accountDeletion.delete(caller.userId, parsed.data.password, ctx.ip);
    return new Response(null, { status: 204 });
  },
  doc: {
    tags: ["accounts"],
    summary: "Delete the account permanently",
    security: [{ Authorization: [] }],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["confirm"],
            properties: { confirm: { type: "boolean", const: true }, password: { type: "string" } },
          },
        },
      },
    },
    responses: {
      204: { description: "Deleted" },
      400: { description: "confirm not true or malformed body" },
      401: { description: "Missing or invalid token, or incorrect password" },
      403: { description: "Called with a personal access token" },
      404: { description: "User no longer exists" },
      429: { description: "Too many failed password checks; see Retry-After" },
      500: { description: "Provider revocation or subscription cancellation failed" },
    },
  },
};
