/**
 * DELETE /auth/account (SPEC 4.1). A raw route: trpc-to-openapi ignores DELETE bodies, and this
 * one carries `{confirm, password}`.
 */
import { z } from "zod";
import { AppError, forbidden, unauthorized } from "../errors.ts";
import { readJson } from "../http/body.ts";
import type { RawRoute } from "../http/raw.ts";
import { looksLikePat } from "../pats/service.ts";

const body = z.object({
  confirm: z.literal(true, "confirm must be true"),
  password: z.string().optional(), // any length: a wrong password is 401, whatever its size
});

export const deleteAccount: RawRoute = {
  method: "DELETE",
  path: "/auth/account",
  async handle(req, ctx) {
    if (!ctx.bearer) throw unauthorized("Missing bearer token");
    if (looksLikePat(ctx.bearer)) throw forbidden("Personal access tokens cannot be used here");
    // Signature and expiry only: after deletion the same token must get 404, not 401.
    const claims = await ctx.services.auth.verifySignatureOnly(ctx.bearer);
    if (!claims) throw unauthorized();
    const parsed = body.safeParse(await readJson(req));
    if (!parsed.success) {
      throw new AppError("invalid_request", parsed.error.issues[0]?.message ?? "Invalid body");
    }
    await ctx.services.accounts.deleteAccount(claims.userId, parsed.data.password);
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
      404: { description: "User no longer exists" },
      500: { description: "Provider revocation or subscription cancellation failed" },
    },
  },
};
