/**
 * Raw routes: endpoints that are not JSON in and JSON out (redirects, forms, multipart, files,
 * signed webhooks, DELETE bodies), served before the tRPC mounts. Each is declared once with
 * `defineRawRoute`, shaped like a procedure: who may call (deny by default: `auth` is required),
 * its query, path and body as zod schemas, its responses. The same declaration validates the
 * request and generates the route's OpenAPI operation; the credential is checked before the body
 * is read (checks before costs).
 */
import type { z } from "zod";
import type { ZodOpenApiOperationObject } from "zod-openapi";
import type { Caller, CallerKind, RequireOptions } from "../../caller.ts";
import { AppError } from "../../errors.ts";
import type { ResponseHolder } from "../trpc/init.ts";
import type { Services } from "../../services.ts";
import { readJson, readLimited } from "./body.ts";
import {
  type Access,
  type BodySpec,
  callerAccess,
  operationObject,
  PUBLIC_ACCESS,
  type ResponseSpec,
} from "./operation.ts";

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

/** The route table's view of a raw route. */
export interface RawRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: `/${string}`;
  handle(req: Request, ctx: RawContext): Promise<Response>;
  /** The OpenAPI operation (zod-openapi form: schemas are converted with the document). */
  doc: ZodOpenApiOperationObject;
}

/**
 * Who may call a route: its access (credentials and the statuses the check answers, documented
 * from this same object) and the check that yields the credential (or throws 401/403).
 * `publicRoute` is the explicit "anyone".
 */
export interface RawAuth<A> {
  access: Access;
  /** Runs before anything of the body is read; sees only the headers and context. */
  check(ctx: RawContext, req: Request): Promise<A>;
}

/** No credential: the route is public (or carries its own proof, like a signature). */
export const publicRoute: RawAuth<null> = {
  access: PUBLIC_ACCESS,
  check: () => Promise.resolve(null),
};

/**
 * A user credential of one of `kinds`, through the same check and renewal as every procedure
 * (CONTRACT.md "Who may call what").
 */
export function callerAuth<K extends CallerKind>(
  kinds: readonly K[],
  options: RequireOptions = {},
): RawAuth<Extract<Caller, { kind: K }>> {
  return {
    access: callerAccess(kinds),
    async check(ctx) {
      const caller = await ctx.services.auth.require(ctx.bearer, kinds, options);
      const renewed = await ctx.services.auth.renewal(caller);
      if (renewed) ctx.response.headers["X-Renewed-Token"] = renewed;
      return caller as Extract<Caller, { kind: K }>;
    },
  };
}

/**
 * How a route's body is read; `stream` leaves the body to the handler (multipart uploads).
 * `example` is the realistic body the document shows ("Try it out" on `/docs` starts from it).
 */
export type RawBody<B> =
  | { kind: "json"; schema: z.ZodType<B>; limit?: number; example?: unknown }
  | { kind: "form"; schema: z.ZodType<B>; limit: number; example?: unknown }
  | {
    kind: "bytes";
    contentType: string;
    limit: number;
    docSchema?: z.ZodType;
    example?: unknown;
  }
  | { kind: "stream"; contentType: string; docSchema: z.ZodType; example?: unknown };

/**
 * One documented response: media type → schema (omitted for an empty body; an error status
 * without it gets the path's error envelope) and headers as a zod object.
 */
export type RawResponseDoc = ResponseSpec;

type BodyOf<R> = R extends { kind: "json" | "form"; schema: z.ZodType<infer B> } ? B
  : R extends { kind: "bytes" } ? Uint8Array<ArrayBuffer>
  : undefined;

export interface RawRouteSpec<
  A,
  Q extends z.ZodObject | undefined,
  P extends z.ZodObject | undefined,
  R extends RawBody<unknown> | undefined,
> {
  method: RawRoute["method"];
  path: `/${string}`;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RawAuth<A>;
  query?: Q;
  params?: P;
  /** Request headers the route reads, for the document. */
  headers?: z.ZodObject;
  /** Cookies the route reads, for the document. */
  cookies?: z.ZodObject;
  body?: R;
  /**
   * Every status the handler answers itself. 400 (any input), 401/403 (from `auth`), 413 (a
   * limited body) and 500 are added; an error without `content` gets the error envelope.
   */
  responses: Record<number, RawResponseDoc>;
  handle(input: {
    req: Request;
    ctx: RawContext;
    auth: A;
    query: Q extends z.ZodObject ? z.output<Q> : undefined;
    params: P extends z.ZodObject ? z.output<P> : undefined;
    body: BodyOf<R>;
  }): Promise<Response>;
}

/** The first issue of a failed parse as the spec's 400 message (`field: reason`). */
export function invalid(error: z.ZodError): AppError {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join(".");
  const message = issue?.message ?? "Invalid request";
  return new AppError("invalid_request", field ? `${field}: ${message}` : message);
}

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(result.error);
  return result.data;
}

async function readBody(req: Request, body: RawBody<unknown>): Promise<unknown> {
  const type = req.headers.get("content-type") ?? "";
  switch (body.kind) {
    case "json":
      return parse(body.schema, await readJson(req, body.limit));
    case "form": {
      if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
        throw new AppError(
          "invalid_request",
          "Content-Type must be application/x-www-form-urlencoded",
        );
      }
      const text = new TextDecoder().decode(await readLimited(req, body.limit));
      return parse(body.schema, Object.fromEntries(new URLSearchParams(text)));
    }
    case "bytes":
      return await readLimited(req, body.limit);
    case "stream":
      return undefined;
  }
}

function bodySpec(body: RawBody<unknown>): BodySpec {
  return { ...bodySpecOf(body), example: body.example };
}

function bodySpecOf(body: RawBody<unknown>): BodySpec {
  switch (body.kind) {
    case "json":
      return {
        contentType: "application/json",
        schema: body.schema,
        // An empty body reads as `{}` (src/infra/http/body.ts).
        required: !body.schema.safeParse({}).success,
        limited: true,
      };
    case "form":
      return {
        contentType: "application/x-www-form-urlencoded",
        schema: body.schema,
        required: true,
        limited: true,
      };
    case "bytes":
      return {
        contentType: body.contentType,
        schema: body.docSchema,
        required: true,
        limited: true,
      };
    case "stream":
      return {
        contentType: body.contentType,
        schema: body.docSchema,
        required: true,
        limited: false,
      };
  }
}

function operationDoc(
  spec: RawRouteSpec<unknown, z.ZodObject | undefined, z.ZodObject | undefined, RawBody<unknown>>,
): ZodOpenApiOperationObject {
  return operationObject({
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    access: spec.auth.access,
    params: { path: spec.params, query: spec.query, header: spec.headers, cookie: spec.cookies },
    body: spec.body ? bodySpec(spec.body) : undefined,
    responses: spec.responses,
  });
}

/** Declares a raw route: one object that validates, authorises, documents and handles. */
export function defineRawRoute<
  A,
  Q extends z.ZodObject | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
  R extends RawBody<unknown> | undefined = undefined,
>(spec: RawRouteSpec<A, Q, P, R>): RawRoute {
  return {
    method: spec.method,
    path: spec.path,
    doc: operationDoc(spec as never),
    async handle(req, ctx) {
      // Deny by default, and before anything is read: the credential first.
      const auth = await spec.auth.check(ctx, req);
      const query = spec.query
        ? parse(spec.query, Object.fromEntries(new URL(req.url).searchParams))
        : undefined;
      const params = spec.params ? parse(spec.params, ctx.params) : undefined;
      const body = spec.body ? await readBody(req, spec.body) : undefined;
      return await spec.handle({
        req,
        ctx,
        auth,
        query: query as never,
        params: params as never,
        body: body as never,
      });
    },
  };
}

/** A JSON response with the given status. */
export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
