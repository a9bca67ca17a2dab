/**
 * Helpers of the identity-provider tests: a server configured against two local providers, and
 * the redirect flow driven by hand (start, the browser-binding cookie, callback, fragment).
 */
import type { JWTPayload } from "jose";
import { assert, assertEquals } from "./assert.ts";
import type { TestServer } from "./server.ts";
import { fetchChecked } from "./openapi.ts";
import { applePrivateKeyPem, type FakeIdp } from "./fake_idp.ts";

export const BUNDLE_ID = "com.example.dds.ios";
export const APPLE_WEB_ID = "com.example.dds.web";
export const GOOGLE_ID = "google-client-id";
export const WEB = "http://localhost:3000";
export const WEB_CALLBACK = `${WEB}/auth/callback`;

/** The environment of a server that signs in with the two local providers. */
export async function oauthEnv(google: FakeIdp, apple: FakeIdp): Promise<Record<string, string>> {
  return {
    GOOGLE_CLIENT_ID: GOOGLE_ID,
    GOOGLE_CLIENT_SECRET: "google-client-secret",
    APPLE_CLIENT_ID: APPLE_WEB_ID,
    APPLE_TEAM_ID: "TEAM123456",
    APPLE_KEY_ID: "KEY1234567",
    APPLE_PRIVATE_KEY: await applePrivateKeyPem(),
    APPLE_BUNDLE_ID: BUNDLE_ID,
    OAUTH_ISSUER_OVERRIDES: JSON.stringify({ google: google.overrides, apple: apple.overrides }),
    WEB_APP_URL: WEB,
  };
}

let seq = 0;
/** A name no other test uses. */
export const unique = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}`;

/** The reply of a request that does not follow redirects. */
export interface RawReply {
  status: number;
  location: string | null;
  text: string;
  headers: Headers;
  /** The `Set-Cookie` values. */
  cookies: string[];
}

/** A request that does not follow redirects. */
export async function raw(
  server: TestServer,
  path: string,
  init: RequestInit = {},
): Promise<RawReply> {
  const res = await fetchChecked(`${server.url}${path}`, { redirect: "manual", ...init });
  const text = await res.text();
  return {
    status: res.status,
    location: res.headers.get("location"),
    text,
    headers: res.headers,
    cookies: res.headers.getSetCookie(),
  };
}

/** A started sign-in: the provider URL, its parameters and the cookie to send back. */
export interface Started {
  url: URL;
  params: URLSearchParams;
  /** `name=value` of the browser-binding cookie, as a browser would send it. */
  cookie: string;
  /** The whole `Set-Cookie` value. */
  setCookie: string;
}

/** Starts a redirect sign-in. */
export async function start(
  server: TestServer,
  provider: string,
  client: string,
  extraQuery = "",
): Promise<Started> {
  const reply = await raw(server, `/auth/oauth/${provider}?client=${client}${extraQuery}`);
  assertEquals(reply.status, 302, reply.text);
  const url = new URL(reply.location!);
  assertEquals(reply.cookies.length, 1, reply.cookies.join(" | "));
  const setCookie = reply.cookies[0];
  return { url, params: url.searchParams, cookie: setCookie.split(";")[0], setCookie };
}

/** The attributes of a `Set-Cookie` value, lower-cased names. */
export function cookieAttributes(setCookie: string): Record<string, string> {
  const [, ...attrs] = setCookie.split(";");
  return Object.fromEntries(attrs.map((a) => {
    const [k, ...v] = a.trim().split("=");
    return [k.toLowerCase(), v.join("=")];
  }));
}

/** The fragment of a client redirect as a map; asserts nothing leaks into the query. */
export function fragmentOf(location: string, prefix: string) {
  assert.ok(location.startsWith(`${prefix}#`), location);
  const [base, fragment] = location.split("#");
  assert.ok(!base.includes("?"), `no query expected: ${location}`);
  return Object.fromEntries(new URLSearchParams(fragment));
}

/** Google's redirect back to the service, from the browser holding `cookie`. */
export function googleCallback(
  server: TestServer,
  query: Record<string, string>,
  cookie?: string,
) {
  return raw(server, `/auth/oauth/google/callback?${new URLSearchParams(query)}`, {
    headers: cookie ? { cookie } : {},
  });
}

/** Apple's form_post back to the service, from the browser holding `cookie`. */
export function appleCallback(
  server: TestServer,
  form: Record<string, string>,
  cookie?: string,
) {
  return raw(server, "/auth/oauth/apple/callback", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(cookie ? { cookie } : {}),
    },
    body: new URLSearchParams(form),
  });
}

/** Google's answer to a started sign-in: a code for these claims (the nonce of the start). */
export function googleCode(google: FakeIdp, started: Started, claims: JWTPayload) {
  return google.issueCode({
    claims: { nonce: started.params.get("nonce")!, email_verified: true, ...claims },
    challenge: started.params.get("code_challenge")!,
  });
}

/** A complete Google sign-in; returns the callback's reply. */
export async function googleSignInReply(
  server: TestServer,
  google: FakeIdp,
  claims: JWTPayload,
  client = "web",
) {
  const started = await start(server, "google", client);
  const code = googleCode(google, started, claims);
  return await googleCallback(
    server,
    { code, state: started.params.get("state")! },
    started.cookie,
  );
}

/** A complete Google sign-in; returns the client redirect's fragment. */
export async function googleSignIn(
  server: TestServer,
  google: FakeIdp,
  claims: JWTPayload,
  client = "web",
  prefix = WEB_CALLBACK,
) {
  const reply = await googleSignInReply(server, google, claims, client);
  assertEquals(reply.status, 302, reply.text);
  return fragmentOf(reply.location!, prefix);
}
