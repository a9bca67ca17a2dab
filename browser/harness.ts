/**
 * The world of the browser tests, started by `global_setup.ts` in a Deno process of its own: the
 * service on ephemeral ports (embedded defaults, or DATABASE_URL/MQTT_URL when set, like the
 * integration tests), a local Google identity provider that consents at once, the web portal
 * origin (`WEB_APP_URL`: its `/auth/callback` page shows the fragment it was given, its
 * `/cors.html` calls the API cross-origin, `/weather.json` feeds a polling plugin and `/hook`
 * takes webhooks), another origin the service does not allow, and a second service with Stripe
 * configured against a local Stripe-compatible server (the console's plan).
 * Prints one JSON line with the URLs and a user's credentials, then runs until stdin closes.
 */
import { startFakeIdp } from "../tests/helpers/fake_idp.ts";
import { oauthEnv } from "../tests/helpers/oauth.ts";
import { startTestServer } from "../tests/helpers/server.ts";
import { startFakeStripe } from "../tests/helpers/fake_stripe.ts";

/** A page of the portal or the other origin. */
function pages(): (req: Request) => Response {
  const html = (body: string) =>
    new Response(`<!doctype html><meta charset="utf-8">${body}`, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  return (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/auth/callback") {
      // What the web app does on its callback: read the tokens from the fragment.
      return html(`<title>Signed in</title><h1>Web callback</h1><pre id="fragment"></pre>
<script>document.getElementById("fragment").textContent = location.hash;</script>`);
    }
    if (url.pathname === "/cors.html") {
      return html(`<title>CORS</title><h1>Cross-origin call</h1><pre id="result">…</pre>
<script>
const q = new URLSearchParams(location.search);
fetch(q.get("api") + "/auth/me", { headers: { authorization: "Bearer " + q.get("token") } })
  .then(async (res) => {
    const me = await res.json();
    document.getElementById("result").textContent = JSON.stringify({
      status: res.status,
      username: me.username,
      renewed: res.headers.get("x-renewed-token"),
    });
  })
  .catch((error) => {
    document.getElementById("result").textContent = JSON.stringify({ blocked: String(error) });
  });
</script>`);
    }
    if (url.pathname === "/weather.json") {
      // What a polling plugin fetches (an Open-Meteo-like answer).
      return Response.json({ current: { temperature_2m: 17.5, wind_speed_10m: 12 } });
    }
    if (url.pathname === "/hook") return new Response(null, { status: 204 });
    return new Response("not found", { status: 404 });
  };
}

const serve = () => Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, pages());
const portal = serve();
const other = serve();
const portalUrl = `http://127.0.0.1:${portal.addr.port}`;
const otherUrl = `http://127.0.0.1:${other.addr.port}`;

const google = await startFakeIdp("google");
const apple = await startFakeIdp("apple");
google.consent = { sub: "browser-user-1", email: "browser@example.com", email_verified: true };
const server = await startTestServer({
  ...(await oauthEnv(google, apple)),
  WEB_APP_URL: portalUrl,
  CORS_ORIGINS: portalUrl,
  // Every user token has under 24 hours left, so each response renews it (X-Renewed-Token).
  ACCESS_TOKEN_EXPIRY: "1h",
  // Polling plugins and webhooks of the console's tests reach the portal on 127.0.0.1.
  WEBHOOK_ALLOW_PRIVATE: "true",
});

// A second service with Stripe configured (a local Stripe-compatible server, the real SDK):
// the console's checkout and portal, and what a Pro plan opens.
const stripe = startFakeStripe();
const STRIPE_WEBHOOK_SECRET = "whsec_browser_tests";
const billing = await startTestServer({
  STRIPE_SECRET_KEY: stripe.key,
  STRIPE_API_URL: stripe.url,
  STRIPE_WEBHOOK_SECRET,
  STRIPE_PRICE_MONTHLY: "price_monthly_pro",
  STRIPE_PRICE_YEARLY: "price_yearly_pro",
});

const api = async (path: string, body: unknown, token?: string) => {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return await res.json();
};
const user = await api("/auth/register", {
  email: "ada@example.com",
  username: "ada",
  password: "correct horse battery",
});
const pat = await api("/api/personal-access-tokens", { name: "browser" }, user.accessToken);

console.log(JSON.stringify({
  url: server.url,
  portal: portalUrl,
  other: otherUrl,
  accessToken: user.accessToken,
  pat: pat.token,
  billing: billing.url,
  stripeWebhookSecret: STRIPE_WEBHOOK_SECRET,
}));

// Runs until the test runner closes stdin (or ends this process).
for await (const _ of Deno.stdin.readable) { /* keep running */ }
await Promise.all([server.close(), billing.close()]);
await Promise.all([
  google.close(),
  apple.close(),
  stripe.close(),
  portal.shutdown(),
  other.shutdown(),
]);
Deno.exit(0);
