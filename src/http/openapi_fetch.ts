/**
 * REST over trpc-to-openapi, with its node handler built once. The library's own fetch adapter
 * rebuilds the handler (its procedure cache, and outside production the whole OpenAPI
 * document) on every request; this adapter hands the node handler a proxy of the Fetch
 * request instead, with the body already read and parsed by the pre-router.
 */
import type { AnyRouter } from "@trpc/server";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import type { Context } from "../trpc/init.ts";

/** What travels with one request through the handler's callbacks. */
interface RequestState {
  ctx: Context;
  error?: unknown;
}

const STATE = Symbol("request state");
type Carrier = { [STATE]: RequestState };

/** Serves one REST request; rejects with the procedure's error for the envelope layer. */
export type OpenApiFetch = (req: Request, body: unknown, ctx: Context) => Promise<Response>;

export function createOpenApiFetch(router: AnyRouter): OpenApiFetch {
  const handler = createOpenApiNodeHttpHandler({
    router,
    createContext: ({ req }) => (req as unknown as Carrier)[STATE].ctx,
    // Kept for the caller, which renders the surface's error envelope instead of the library's.
    onError: ({ error, req }) => {
      (req as unknown as Carrier)[STATE].error = error;
    },
    responseMeta: ({ ctx }) => ({ status: (ctx as Context | undefined)?.response.status ?? 200 }),
  });

  return (req, body, ctx) =>
    new Promise<Response>((resolve, reject) => {
      const state: RequestState = { ctx };
      // The body was read and validated as JSON already (an empty one is `{}`), so the library's
      // own content-type check must see JSON.
      let headersView: Headers | undefined;
      const proxy = new Proxy(req, {
        get(target, prop) {
          if (prop === STATE) return state;
          if (prop === "body") return body;
          if (prop === "url") return decodeUnreserved(target.url);
          if (prop === "headers" && body !== undefined) {
            headersView ??= new Headers(target.headers);
            headersView.set("content-type", "application/json");
            return headersView;
          }
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const headers = new Headers();
      let status = 200;
      const res = {
        setHeader(key: string, value: string | string[]) {
          if (typeof value === "string") headers.set(key, value);
          else for (const v of value) headers.append(key, v);
        },
        get statusCode() {
          return status;
        },
        set statusCode(code: number) {
          status = code;
        },
        end(payload?: string) {
          if (state.error !== undefined) return reject(state.error);
          resolve(
            status === 204
              ? new Response(null, { status })
              : new Response(payload ?? null, { status, headers }),
          );
        },
      };
      // deno-lint-ignore no-explicit-any -- the node handler's request and response are structural
      handler(proxy as any, res as any).catch(reject);
    });
}

/**
 * RFC 3986 6.2.2.2: a percent-encoded unreserved character is that character, so
 * `/api/devices/0193%2D...` names the same device as `/api/devices/0193-...`. trpc-to-openapi
 * hands path parameters over still encoded (STACK.md). Only letters, digits, `-`, `_` and `~`
 * are decoded: a decoded `/` or `.` could change which route matches.
 */
export function decodeUnreserved(href: string): string {
  const url = new URL(href);
  const path = url.pathname.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return /^[A-Za-z0-9_~-]$/.test(char) ? char : escape;
  });
  return url.origin + path + url.search;
}
