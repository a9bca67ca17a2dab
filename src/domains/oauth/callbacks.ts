/**
 * The providers' redirects back: Google's GET with a query, Apple's form_post (SPEC 4.2). Both
 * end in a 302 to the client with the tokens in the URL fragment (CONTRACT.md).
 */
import { z } from "zod";
import { defineRawRoute, type RawAuth } from "../../infra/http/raw.ts";
import { redirect } from "./start.ts";
import { BINDING_COOKIE_PATH, bindingCookieName, bindingsOf } from "./browser_binding.ts";
import type { ProviderName } from "./providers.ts";

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

/**
 * CONTRACT.md: the callback must come from the browser that started the sign-in. Its binding
 * cookies are the credential, checked before anything else is read.
 */
function browserBinding(provider: ProviderName): RawAuth<string[]> {
  return {
    // No bearer: the cookie is the proof; its absence is the 400 below.
    access: { credentials: [], errors: {} },
    check(ctx, req) {
      const bindings = bindingsOf(req.headers.get("cookie"), provider);
      ctx.services.oauth.requireBinding(provider, bindings);
      return Promise.resolve(bindings);
    },
  };
}

const cookie = (provider: ProviderName) =>
  z.object({
    [bindingCookieName(provider)]: z.string().meta({
      description: "The browser binding set by the start of the sign-in",
    }),
  });

/** What the provider sends back; any other parameter is passed through untouched. */
const redirectParams = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional(),
}).loose();

export const googleCallback = defineRawRoute({
  method: "GET",
  path: "/auth/oauth/google/callback",
  operationId: "oauth-googleCallback",
  summary: "Google's redirect back (called by the provider)",
  tags: ["identity-providers"],
  auth: browserBinding("google"),
  query: redirectParams,
  cookies: cookie("google"),
  responses,
  async handle({ ctx, auth, query }) {
    const params = new URLSearchParams(query as Record<string, string>);
    const info = { userAgent: ctx.userAgent, ip: ctx.ip };
    const result = await ctx.services.oauth.callback("google", params, auth, info);
    return redirect(result.location, result.setCookie);
  },
});

export const appleCallback = defineRawRoute({
  method: "POST",
  path: "/auth/oauth/apple/callback",
  operationId: "oauth-appleCallback",
  summary: "Apple's form_post redirect back (called by the provider)",
  tags: ["identity-providers"],
  auth: browserBinding("apple"),
  cookies: cookie("apple"),
  body: {
    kind: "form",
    limit: FORM_LIMIT,
    schema: redirectParams.extend({
      id_token: z.string().optional(),
      user: z.string().optional().meta({ description: "JSON, first authorization only" }),
    }),
    example: {
      code: "c5d2e8f1a0b94c3e8d7f6a5b4c3d2e1f0.0.rrsx.Kq3v9ZbT1nY",
      state: "Xk3v9ZbT1nYq2w8Lr5Hc0PmA7sJd4GfE",
      id_token: "eyJraWQiOiJXNldjT0tCIiwiYWxnIjoiUlMyNTYifQ.eyJpc3MiOiJodHRwczovL2FwcGxlaWQu" +
        "YXBwbGUuY29tIn0.c2lnbmF0dXJl",
      user: '{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"ada@example.com"}',
    },
  },
  responses,
  async handle({ ctx, auth, body }) {
    const params = new URLSearchParams(body as Record<string, string>);
    const info = { userAgent: ctx.userAgent, ip: ctx.ip };
    const result = await ctx.services.oauth.callback("apple", params, auth, info);
    return redirect(result.location, result.setCookie);
  },
});
