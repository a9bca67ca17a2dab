/**
 * Issue 13: REST requests are dispatched by src/infra/http/rest.ts instead of trpc-to-openapi's node
 * handler. Both serve the same requests here, through the same pre-router, on one server, and
 * must answer the same status, headers and body: every REST route with no, a bad, a user and a
 * PAT credential, odd path parameters (percent-encoded, upper-case paths, trailing slashes),
 * repeated and coercible query parameters, bodies of every JSON type, and a device with a push.
 */
import type { AnyRouter } from "@trpc/server";
import { createOpenApiNodeHttpHandler, generateOpenApiDocument } from "trpc-to-openapi";
import { assert, assertEquals } from "./helpers/assert.ts";
import { client, registerUser } from "./helpers/http.ts";
import { startTestServer } from "./helpers/server.ts";
import { createDevice, insertPush } from "./helpers/devices.ts";
import { createHandler } from "../src/infra/http/handler.ts";
import { decodeUnreserved, type RestDispatch } from "../src/infra/http/rest.ts";
import { openApiRoutes } from "../src/infra/http/routes.ts";
import { allRawRoutes } from "../src/raw_routes.ts";
import { appRouter } from "../src/router.ts";
import type { Context } from "../src/infra/trpc/init.ts";

/** The REST adapter the service used before issue 13: trpc-to-openapi's node handler. */
function libraryDispatch(router: AnyRouter): RestDispatch {
  const STATE = Symbol("request state");
  type State = { ctx: Context; error?: unknown };
  const handler = createOpenApiNodeHttpHandler({
    router,
    createContext: ({ req }) => (req as unknown as { [STATE]: State })[STATE].ctx,
    onError: ({ error, req }) => {
      (req as unknown as { [STATE]: State })[STATE].error = error;
    },
    responseMeta: ({ ctx }) => ({ status: (ctx as Context | undefined)?.response.status ?? 200 }),
  });
  return (req, _url, body, ctx) =>
    new Promise<Response>((resolve, reject) => {
      const state: State = { ctx };
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

/** Status, headers (but the date) and body, with clock readings made comparable. */
async function snapshot(res: Response) {
  const headers = [...res.headers].filter(([k]) => k !== "date");
  const body = (await res.text())
    .replace(/expires=\d+(&|\\u0026)signature=[\w-]+/g, "SIGNED")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "TIME");
  return { status: res.status, headers, body };
}

Deno.test({
  name: "REST dispatch answers exactly as trpc-to-openapi did",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const s = await startTestServer();
    try {
      const api = client(s.url);
      const user = await registerUser(api);
      const pat = (await api.post("/api/personal-access-tokens", {
        token: user.accessToken,
        body: { name: "diff" },
      })).body.token as string;
      const device = await createDevice(s, user.user.id);
      await insertPush(s, device, user.user.id, { status: "PUBLISHED" });
      await api.get(`/api/devices/${device.id}/push`, { token: user.accessToken });

      const documents = { user: () => ({}), factory: () => ({}) };
      const build = (rest?: RestDispatch) =>
        createHandler({
          router: appRouter,
          raw: allRawRoutes(documents),
          services: s.app.services,
          logger: s.app.logger,
          ingress: "combined",
          ...(rest ? { rest } : {}),
        });
      const ours = build();
      const theirs = build(libraryDispatch(appRouter));

      const ids = [
        device.id,
        device.id.toUpperCase(),
        device.id.replace(/-/g, "%2D"),
        "00000000-0000-7000-8000-000000000000",
        "not-a-uuid",
        "%E2%82%AC",
      ];
      const queries = ["", "?format=raw4&format=png", "?limit=abc", "?limit=5&cursor=", "?a=1"];
      const bodies = [undefined, "{}", "[1]", '"text"', "null", "1", '{"name":7,"limit":"3"}'];
      const credentials = [undefined, "Bearer nope", `Bearer ${user.accessToken}`, `Bearer ${pat}`];
      const routes = openApiRoutes(appRouter)
        .filter((r) => !r.path.startsWith("/internal/factory"));
      let compared = 0;
      for (const route of routes) {
        const mutating = route.method !== "GET";
        for (const id of route.path.includes("{") ? ids : [ids[0]]) {
          const path = route.path.replace(/\{\w+\}/g, id);
          const variants = [path, `${path}/`, path.toUpperCase()];
          for (const variant of variants) {
            for (const query of mutating ? [""] : queries) {
              for (const authorization of credentials) {
                // A write with a working credential would change what the second call sees;
                // with a made-up id it is refused before anything changes.
                const known = id.toLowerCase() === device.id ||
                  id === device.id.replace(/-/g, "%2D");
                if (mutating && authorization?.includes(user.accessToken) && known) continue;
                if (mutating && authorization?.includes(pat) && known) continue;
                if (
                  mutating && !route.path.includes("{") && authorization?.startsWith("Bearer e")
                ) {
                  continue;
                }
                if (mutating && !route.path.includes("{") && authorization === `Bearer ${pat}`) {
                  continue;
                }
                for (const body of mutating ? bodies : [undefined]) {
                  const init = () =>
                    new Request(`${s.url}${variant}${query}`, {
                      method: route.method,
                      headers: {
                        "x-request-id": "diff-request-0001",
                        ...(authorization ? { authorization } : {}),
                        ...(body !== undefined ? { "content-type": "application/json" } : {}),
                      },
                      body,
                    });
                  const a = await snapshot(await ours(init()));
                  const b = await snapshot(await theirs(init()));
                  assertEquals(
                    a,
                    b,
                    `${route.method} ${variant}${query} ${authorization ?? ""} ${body ?? ""}`,
                  );
                  compared++;
                }
              }
            }
          }
        }
      }
      assert.ok(compared > 1000, `only ${compared} requests compared`);
    } finally {
      await s.close();
    }
  },
});

Deno.test("REST dispatch: trpc-to-openapi accepts every procedure's OpenAPI metadata", () => {
  // The service no longer runs the library's check at start (it never ran in production); the
  // same check runs here: a path parameter without its input field, a duplicate route, a GET
  // with a body schema would throw.
  const document = generateOpenApiDocument(appRouter, { title: "t", version: "0", baseUrl: "" });
  assert.ok(Object.keys(document.paths ?? {}).length > 50);
});
