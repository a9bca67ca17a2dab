/**
 * The providers' redirects back: Google's GET with a query, Apple's form_post (SPEC 4.2). Both
 * end in a 302 to the client with the tokens in the URL fragment (CONTRACT.md).
 */
import { AppError } from "../errors.ts";
import { readLimited } from "../http/body.ts";
import type { RawRoute } from "../http/raw.ts";
import { redirect } from "./start.ts";
import { BINDING_COOKIE_PATH, bindingCookieName, bindingsOf } from "./browser_binding.ts";

const FORM_LIMIT = 64 * 1024;

const responses = {
  302: {
    description: "To the client's redirect, tokens (or `error`) in the fragment; clears the " +
      `sign-in cookie (path ${BINDING_COOKIE_PATH})`,
  },
  400: {
    description: "Invalid, expired or replayed state, or a browser without the sign-in cookie " +
      "set by the start",
  },
  501: { description: "The provider is not configured" },
};

export const googleCallback: RawRoute = {
  method: "GET",
  path: "/auth/oauth/google/callback",
  async handle(req, ctx) {
    const params = new URL(req.url).searchParams;
    const info = { userAgent: ctx.userAgent, ip: ctx.ip };
    const bindings = bindingsOf(req.headers.get("cookie"), "google");
    const result = await ctx.services.oauth.callback("google", params, bindings, info);
    return redirect(result.location, result.setCookie);
  },
  doc: {
    tags: ["identity-providers"],
    summary: "Google's redirect back (called by the provider)",
    parameters: [
      ...["code", "state", "error"].map((name) => ({
        name,
        in: "query",
        required: false,
        schema: { type: "string" },
      })),
      {
        name: bindingCookieName("google"),
        in: "cookie",
        required: true,
        schema: { type: "string" },
      },
    ],
    responses,
  },
};

export const appleCallback: RawRoute = {
  method: "POST",
  path: "/auth/oauth/apple/callback",
  async handle(req, ctx) {
    // CONTRACT.md: no binding cookie, no sign-in; refused before the body is read.
    const bindings = bindingsOf(req.headers.get("cookie"), "apple");
    ctx.services.oauth.requireBinding("apple", bindings);
    const type = req.headers.get("content-type") ?? "";
    if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
      throw new AppError(
        "invalid_request",
        "Content-Type must be application/x-www-form-urlencoded",
      );
    }
    const body = await readLimited(req, FORM_LIMIT);
    const params = new URLSearchParams(new TextDecoder().decode(body));
    const info = { userAgent: ctx.userAgent, ip: ctx.ip };
    const result = await ctx.services.oauth.callback("apple", params, bindings, info);
    return redirect(result.location, result.setCookie);
  },
  doc: {
    tags: ["identity-providers"],
    summary: "Apple's form_post redirect back (called by the provider)",
    parameters: [
      {
        name: bindingCookieName("apple"),
        in: "cookie",
        required: true,
        schema: { type: "string" },
      },
    ],
    requestBody: {
      required: true,
      content: {
        "application/x-www-form-urlencoded": {
          schema: {
            type: "object",
            properties: {
              code: { type: "string" },
              state: { type: "string" },
              id_token: { type: "string" },
              user: { type: "string", description: "JSON, first authorization only" },
              error: { type: "string" },
            },
          },
        },
      },
    },
    responses,
  },
};
