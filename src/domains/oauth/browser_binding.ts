/**
 * The cookie that binds a sign-in state to the browser that started it (CONTRACT.md "Identity
 * providers"): without it an attacker could finish their own sign-in in a victim's browser
 * (login CSRF). The cookie holds a random binding; the state row keeps only its SHA-256.
 */
import type { ProviderName } from "./providers.ts";

/** A sign-in must come back within this time; the cookie lives exactly as long. */
export const STATE_TTL_SECONDS = 10 * 60;

/** Path of the cookie: the start and callback routes, nothing else of the service. */
export const BINDING_COOKIE_PATH = "/auth/oauth/";

/** At most this many same-name cookies are looked at (a browser sends one per matching path). */
const MAX_VALUES = 4;

/** Cookie names per provider, so a Google start does not clobber an Apple sign-in in flight. */
export function bindingCookieName(provider: ProviderName): string {
  return `dds_oauth_${provider}`;
}

/**
 * Cookie attributes. Google comes back by a top-level GET redirect, which a `SameSite=Lax`
 * cookie follows; `Secure` only when the service is served over https, so the flow also works
 * on http://localhost. Apple comes back by a cross-site form POST, which only a
 * `SameSite=None` cookie follows, and browsers take that only with `Secure` (Apple allows
 * https redirect URIs only).
 */
function attributes(provider: ProviderName, https: boolean, maxAge: number): string {
  const site = provider === "apple"
    ? "; SameSite=None; Secure"
    : `; SameSite=Lax${https ? "; Secure" : ""}`;
  return `; Path=${BINDING_COOKIE_PATH}; Max-Age=${maxAge}; HttpOnly${site}`;
}

/** The `Set-Cookie` value `start` sends with a fresh binding. */
export function bindingCookie(provider: ProviderName, binding: string, https: boolean): string {
  return `${bindingCookieName(provider)}=${binding}${
    attributes(provider, https, STATE_TTL_SECONDS)
  }`;
}

/** The `Set-Cookie` value that removes the binding once its state is consumed. */
export function clearedBindingCookie(provider: ProviderName, https: boolean): string {
  return `${bindingCookieName(provider)}=${attributes(provider, https, 0)}`;
}

/**
 * The provider's binding values in a `Cookie` header. A browser sends every cookie of that name
 * whose path matches (one could have been planted for a longer path), so all are returned and
 * the state row decides which one started it.
 */
export function bindingsOf(cookieHeader: string | null, provider: ProviderName): string[] {
  if (!cookieHeader) return [];
  const name = bindingCookieName(provider);
  const values: string[] = [];
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    // Bindings are base64url; anything else is not one of ours.
    if (/^[A-Za-z0-9_-]{16,128}$/.test(value)) values.push(value);
    if (values.length === MAX_VALUES) break;
  }
  return values;
}
