/** GET /auth/oauth/{google,apple}?client=: 302 to the provider's consent screen (SPEC 4.2). */
import type { RawRoute } from "../http/raw.ts";
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
  return {
    method: "GET",
    path: `/auth/oauth/${provider}`,
    async handle(req, ctx) {
      const client = new URL(req.url).searchParams.get("client");
      const { location, setCookie } = await ctx.services.oauth.start(provider, client);
      return redirect(location, setCookie);
    },
    doc: {
      tags: ["identity-providers"],
      summary: `Start ${label} sign-in`,
      parameters: [{
        name: "client",
        in: "query",
        required: true,
        schema: { type: "string", enum: ["web", "desktop", "ios"] },
        description: "Selects where the tokens are delivered",
      }],
      responses: {
        302: {
          description: `To ${label}'s consent screen; sets the HttpOnly cookie ` +
            `\`${bindingCookieName(provider)}\` (path ${BINDING_COOKIE_PATH}) that binds the ` +
            "sign-in to this browser",
        },
        400: { description: "Missing or unknown client" },
        501: { description: `${label} sign-in is not configured` },
      },
    },
  };
}

export const googleStart = startRoute("google", "Google");
export const appleStart = startRoute("apple", "Apple");
