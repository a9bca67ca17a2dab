/**
 * The typed client of the service: every procedure of `AppRouter` over `/trpc`, with the types
 * of its input and output. Use it from TypeScript (tools, scripts, tests) instead of hand-written
 * fetches; the REST paths of SPEC.md stay the contract for everyone else.
 *
 * ```ts
 * import { createClient } from "./src/client.ts";
 * const api = createClient({ url: "http://localhost:8080", token });
 * const me = await api.accounts.getMe.query();
 * ```
 *
 * Calls made in the same tick are sent as one batch of at most 10 (CONTRACT.md: a larger batch
 * is refused). Raw routes (file downloads, ZIPs, redirects, the Stripe webhook) are not tRPC
 * procedures: call those with `fetch`.
 */
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "./router.ts";

export type { AppRouter };
export { TRPCClientError };

/** CONTRACT.md: the service refuses a `/trpc` batch of more than 10 calls. */
const MAX_BATCH = 10;

export interface ClientOptions {
  /** Base URL of the service (`http://localhost:8080`, or the factory port's URL). */
  url: string;
  /**
   * Bearer credential: a user access token, a PAT (`pat_…`) or a factory principal's token. A
   * function is asked before every request (a token renewed through `X-Renewed-Token`).
   */
  token?: string | (() => string | undefined);
  /** Headers added to every request (an `Idempotency-Key` belongs on one call: see below). */
  headers?: Record<string, string>;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
}

/** A typed client of every procedure; `api.<router>.<procedure>.query()` / `.mutate()`. */
export function createClient(options: ClientOptions) {
  const base = options.url.replace(/\/+$/, "").replace(/\/trpc$/, "");
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${base}/trpc`,
        maxItems: MAX_BATCH,
        fetch: options.fetch,
        headers() {
          const token = typeof options.token === "function" ? options.token() : options.token;
          return { ...options.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
        },
      }),
    ],
  });
}

/** The client `createClient` returns. */
export type Client = ReturnType<typeof createClient>;

/** The HTTP status of a failed call (401, 404, 409, …), or undefined for a network failure. */
export function statusOf(error: unknown): number | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const data = (error as TRPCClientError<AppRouter>).data as { httpStatus?: number } | undefined;
  return data?.httpStatus;
}
