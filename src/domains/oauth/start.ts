/** GET /auth/oauth/{google,apple}?client=: 302 to the provider's consent screen (SPEC 4.2). */
import { z } from "zod";
import { defineRawRoute, publicRoute, type RawRoute } from "../../infra/http/raw.ts";
import type { ProviderName } from "./providers.ts";
import { BINDING_COOKIE_PATH, bindingCookieName } from "./browser_binding.ts";

/** A redirect the browser must not cache or leak through Referer, with its cookie change. */
export function redirect(location: string, setCookie: string): Response {
  return new Response(null, {
    status: 302,
    headers: {
      location,
      "set-cookie": setCookie,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    },
  });
}

function startRoute(provider: ProviderName, label: string): RawRoute {
  return defineRawRoute({
    method: "GET",
    path: `/auth/oauth/${provider}`,
    operationId: `oauth-${provider}Start`,
    summary: `Start ${label} sign-in`,
    tags: ["identity-providers"],
    auth: publicRoute,
    // Checked by the service, after whether the provider is configured (501 comes first).
    query: z.object({
      client: z.string().optional().meta({
        description: "Where the tokens are delivered: `web`, `desktop`, `ios` or `console` " +
          "(the owner's console at PUBLIC_BASE_URL/)",
      }),
    }),
    responses: {
      302: {
        description: `To ${label}'s consent screen; sets the HttpOnly cookie ` +
          `\`${bindingCookieName(provider)}\` (path ${BINDING_COOKIE_PATH}) that binds the ` +
          "sign-in to this browser",
      },
      400: { description: "Missing or unknown client" },
      501: { description: `${label} sign-in is not configured` },
    },
    async handle({ ctx, query }) {
      const { location, setCookie } = await ctx.services.oauth.start(
        provider,
        query.client ?? null,
      );
      return redirect(location, setCookie);
    },
  });
}

export const googleStart = startRoute("google", "Google");
export const appleStart = startRoute("apple", "Apple");
