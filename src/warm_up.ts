/**
 * Warms the request path before `/ready` says 200 (issue 26). A fresh process answered its first
 * seconds of load 4-10x slower at p99 than the next: the hot functions (routing, the envelope,
 * access-token checks, the session lookup and its query through Kysely and the driver) were
 * still being parsed, compiled and tiered up by V8 while real requests waited on them.
 *
 * The warm-up sends requests through a handler built like the served one but without metrics
 * or logs (nothing an operator scrapes counts them), from a documentation-only address (no
 * client's rate window sees them): `/health`, and the device push path and `/auth/me` with
 * signed tokens of a session that does not exist, which run the whole authentication path to
 * its 401 without touching any user's data, and TRMNL's poll (`/api/display`) with a key no
 * display has (a miss is not cached: nothing is kept).
 */
import type { AccessTokens } from "./domains/accounts/access_tokens.ts";

type Handler = (req: Request, info: typeof INFO) => Response | Promise<Response>;

/** Requests sent in all, and at once (about the burst a load balancer sends a new process). */
export const WARM_UP_REQUESTS = 1_500;
/** The same on the embedded database, whose one connection serves the warm-up's queries in turn. */
export const WARM_UP_REQUESTS_PGLITE = 500;
const WARM_UP_CONCURRENCY = 32;

/** What TRMNL's firmware sends on a wake, with a key no display has (it is 401). */
const DISPLAY_POLL = {
  "id": "02:00:00:00:00:00",
  "access-token": "warm-up-display-key-0000000000",
  "refresh-rate": "900",
  "battery-voltage": "4.10",
  "fw-version": "1.6.2",
  "rssi": "-60",
  "width": "800",
  "height": "480",
};

/** RFC 5737 TEST-NET-1: never a real client. */
const INFO = { remoteAddr: { hostname: "192.0.2.1" } };

/** Runs the warm-up through `handler`; answers are read and dropped, failures ignored. */
export async function warmRequestPath(
  handler: Handler,
  tokens: AccessTokens,
  requests = WARM_UP_REQUESTS,
): Promise<void> {
  const bearers = await Promise.all(
    Array.from({ length: 4 }, () => tokens.sign(crypto.randomUUID(), crypto.randomUUID())),
  );
  const base = "http://warm-up.invalid";
  const make = (i: number): Request => {
    const authorization = `Bearer ${bearers[i % bearers.length]}`;
    switch (i % 4) {
      case 0:
        return new Request(`${base}/health`);
      case 1:
        return new Request(`${base}/api/devices/${crypto.randomUUID()}/push`, {
          headers: { authorization },
        });
      case 2:
        return new Request(`${base}/api/display`, { headers: DISPLAY_POLL });
      default:
        return new Request(`${base}/auth/me`, { headers: { authorization } });
    }
  };
  let next = 0;
  const lane = async () => {
    while (next < requests) {
      const i = next++;
      try {
        const res = await handler(make(i), INFO);
        await res.body?.cancel();
      } catch { /* a warm-up answer does not matter */ }
    }
  };
  await Promise.all(Array.from({ length: WARM_UP_CONCURRENCY }, lane));
}
