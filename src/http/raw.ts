/** Raw routes: endpoints that are not JSON in and JSON out, served before the tRPC mounts. */
import type { ResponseHolder } from "../trpc/init.ts";
import type { Services } from "../services.ts";

/** What a raw handler gets besides the request. */
export interface RawContext {
  requestId: string;
  ip: string;
  userAgent: string;
  bearer: string | null;
  params: Record<string, string>;
  response: ResponseHolder;
  services: Services;
}

/** An OpenAPI operation object for the generated document. */
export type OperationDoc = Record<string, unknown>;

export interface RawRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: `/${string}`;
  handle(req: Request, ctx: RawContext): Promise<Response>;
  doc: OperationDoc;
}

/** A JSON response with the given status. */
export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
