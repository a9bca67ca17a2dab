/**
 * Where a redirect sign-in ends (CONTRACT.md "Identity providers"): one of four fixed client
 * URLs, chosen by the `client` kept in the state row, never by a request parameter; tokens or
 * an error always in the fragment, never the query.
 */
import type { Config } from "../../config.ts";

/** The client redirects of CONTRACT.md, from the configuration and the service's public URL. */
export const CLIENT_REDIRECTS = {
  web: (config: Config) => `${config.webAppUrl}/auth/callback`,
  desktop: () => "dds-desktop://auth/callback",
  ios: () => "dds-ios://auth/callback",
  // The owner's console (CONTRACT.md "The owner's console"): its page on PUBLIC_BASE_URL.
  console: (_config: Config, baseUrl: string) => `${baseUrl}/`,
} as const;

/** The clients `start` accepts. */
export type OauthClient = keyof typeof CLIENT_REDIRECTS;

/**
 * Provider error codes passed on to the client as `access_denied` (the person declined or must
 * act at the provider); every other provider error is `server_error`. The provider's own text is
 * never echoed into the client's URL.
 */
const DECLINED = new Set([
  "access_denied",
  "user_cancelled_authorize", // Apple
  "consent_required",
  "interaction_required",
  "login_required",
  "account_selection_required",
]);

/** The error code the client sees for a provider's `error` parameter. */
export function clientErrorOf(providerError: string): "access_denied" | "server_error" {
  return DECLINED.has(providerError) ? "access_denied" : "server_error";
}

/** `target#k=v&…`, URL-encoded, so nothing a value holds can change the target. */
export function withFragment(target: string, fields: Record<string, string>): string {
  return `${target}#${new URLSearchParams(fields)}`;
}
