/**
 * The one description every operation is documented from, procedures and raw routes alike: who
 * may call it (`Access`, the same object that drives the credential check), its request parts,
 * its success status and headers, and the errors it can answer. `operationObject` turns it into
 * a zod-openapi operation; error bodies are the envelopes of `envelope.ts`, and the statuses
 * every operation of a kind can answer (400 for any input, 401/403 from its credential check,
 * 413 for a read body, 500) are added here, so no declaration has to remember them.
 */
import { z } from "zod";
import type {
  ZodOpenApiContentObject,
  ZodOpenApiOperationObject,
  ZodOpenApiResponseObject,
} from "zod-openapi";
import type { CallerKind } from "../../caller.ts";
import { errorSchemaOf } from "./envelope.ts";

/** A credential an operation may accept (CONTRACT.md "Who may call what"). */
export type Credential = CallerKind | "factory" | "display";

/** The security scheme of each credential, in both documents. */
export const SECURITY_SCHEMES = {
  user: "userAccessToken",
  pat: "personalAccessToken",
  factory: "factoryToken",
  display: "displayAccessToken",
} as const satisfies Record<Credential, string>;

/** Status → what it means for this operation. */
export type StatusDocs = Record<number, string>;

/**
 * Who may call an operation: the credentials it accepts (none: public) and the statuses the
 * credential check itself answers. Built once per base procedure or raw auth and read both by the
 * check and by the document.
 */
export interface Access {
  credentials: readonly Credential[];
  errors: StatusDocs;
}

/** No credential (the route may still carry its own proof, like a signature). */
export const PUBLIC_ACCESS: Access = { credentials: [], errors: {} };

const CREDENTIAL_NAMES: Record<Credential, string> = {
  user: "a user access token",
  pat: "a personal access token",
  factory: "a factory principal's token",
  display: "a display's `api_key` in `Access-Token`",
};

/**
 * Access for user credentials of `kinds`: a missing or invalid credential is 401, a valid one of
 * another kind 403 (docs/decisions.md "Wrong kind of credential").
 */
export function callerAccess(kinds: readonly CallerKind[]): Access {
  const refused = (["user", "pat"] as const).filter((kind) => !kinds.includes(kind));
  const errors: StatusDocs = { 401: "Missing, invalid, expired or revoked credential" };
  if (refused.length) {
    errors[403] = `Called with ${refused.map((k) => CREDENTIAL_NAMES[k]).join(" or ")}`;
  }
  return { credentials: kinds, errors };
}

/** One documented response; an error status may leave `content` out (the envelope is added). */
export interface ResponseSpec {
  description: string;
  /** Media type → schema. */
  content?: Record<string, z.ZodType>;
  /** Response headers (names → schemas; optional ones may be absent). */
  headers?: z.ZodObject;
}

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** The body an operation reads. */
export interface BodySpec {
  contentType: string;
  /** Omitted when the body is a stream or bytes the document cannot describe further. */
  schema?: z.ZodType;
  required: boolean;
  /** Read under a size limit by the shared reader (so 413 is possible). */
  limited: boolean;
  /** The realistic body the document shows and "Try it out" on `/docs` starts from. */
  example?: unknown;
}

export interface OperationSpec {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  deprecated?: boolean;
  access: Access;
  params?: { path?: z.ZodObject; query?: z.ZodObject; header?: z.ZodObject; cookie?: z.ZodObject };
  body?: BodySpec;
  /** Every status the handler chooses itself, success and error. */
  responses: Record<number, ResponseSpec>;
}

const EXAMPLES = new WeakMap<z.ZodType, unknown>();

/**
 * Declares the request an input schema is documented with: the body "Try it out" on `/docs`
 * prefills (the docs show the same values). Typed by the schema, and kept beside it rather than
 * in its meta, so the document carries it once, on the request body's media type (where Swagger
 * UI reads it), also when the operation's body is only part of the input (path keys taken out).
 */
export function withExample<S extends z.ZodType>(schema: S, example: z.input<S>): S {
  EXAMPLES.set(schema, example);
  return schema;
}

/** The example `withExample` declared for this schema, if any. */
export function exampleOf(schema: z.ZodType): unknown {
  return EXAMPLES.get(schema);
}

const renewedToken = z.string().optional().meta({
  header: {
    description: "A fresh access token when the one sent has under 24 hours left (SPEC 5.2); " +
      "replace the stored token with it",
  },
});
const retryAfter = z.string().regex(/^\d+$/).meta({
  header: { description: "Seconds to wait before retrying" },
});
const location = z.string().meta({ header: { description: "Where the client is sent" } });

/** The statuses an operation can answer whatever its handler does. */
function impliedErrors(spec: OperationSpec): StatusDocs {
  const p = spec.params;
  const errors: StatusDocs = {};
  if (p?.path || p?.query || p?.header || spec.body) errors[400] = "Invalid request";
  if (spec.body?.limited) errors[413] = "Request body over its size limit";
  return { ...errors, ...spec.access.errors, 500: "Internal server error" };
}

function content(types: Record<string, z.ZodType>): ZodOpenApiContentObject {
  return Object.fromEntries(Object.entries(types).map(([type, schema]) => [type, { schema }]));
}

/** Headers every response of its status carries, added unless the declaration names them. */
function statusHeaders(status: number, spec: OperationSpec): Record<string, z.ZodType> {
  if (status === 429) return { "Retry-After": retryAfter };
  // A redirect names where to; 304 (Not Modified) is no redirect and has none.
  if (status >= 300 && status < 400 && status !== 304) return { Location: location };
  // The renewal runs with the credential check, before the handler (src/infra/trpc/auth.ts).
  if (status < 300 && spec.access.credentials.includes("user")) {
    return { "X-Renewed-Token": renewedToken };
  }
  return {};
}

function response(
  status: number,
  doc: ResponseSpec,
  spec: OperationSpec,
): ZodOpenApiResponseObject {
  const body = doc.content ??
    (status >= 400 ? { "application/json": errorSchemaOf(spec.path) } : undefined);
  const declared = doc.headers?.shape ?? {};
  const lower = new Set(Object.keys(declared).map((name) => name.toLowerCase()));
  const added = Object.entries(statusHeaders(status, spec))
    .filter(([name]) => !lower.has(name.toLowerCase()));
  const headers = { ...Object.fromEntries(added), ...declared };
  return {
    description: doc.description,
    ...(Object.keys(headers).length ? { headers: z.object(headers) } : {}),
    ...(body ? { content: content(body) } : {}),
  };
}

function describe(spec: OperationSpec): string {
  const { credentials } = spec.access;
  const who = credentials.length
    ? `Credential: ${credentials.map((c) => CREDENTIAL_NAMES[c]).join(" or ")}.`
    : "No credential.";
  return spec.description ? `${spec.description}\n\n${who}` : who;
}

/** The zod-openapi operation of a spec, with every status it can answer. */
export function operationObject(spec: OperationSpec): ZodOpenApiOperationObject {
  const statuses: Record<number, ResponseSpec> = {};
  for (const [status, description] of Object.entries(impliedErrors(spec))) {
    statuses[Number(status)] = { description };
  }
  Object.assign(statuses, spec.responses);
  const p = spec.params ?? {};
  const requestParams = Object.fromEntries(
    Object.entries({ path: p.path, query: p.query, header: p.header, cookie: p.cookie })
      .filter(([, schema]) => schema && Object.keys(schema.shape).length),
  );
  const body = spec.body;
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: describe(spec),
    tags: spec.tags,
    ...(spec.deprecated ? { deprecated: true } : {}),
    security: spec.access.credentials.map((c) => ({ [SECURITY_SCHEMES[c]]: [] })),
    ...(Object.keys(requestParams).length ? { requestParams } : {}),
    ...(body
      ? {
        requestBody: {
          required: body.required,
          content: {
            [body.contentType]: {
              ...(body.schema ? { schema: body.schema } : {}),
              ...(body.example !== undefined ? { example: body.example } : {}),
            },
          },
        },
      }
      : {}),
    responses: Object.fromEntries(
      Object.entries(statuses)
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([status, doc]) => [status, response(Number(status), doc, spec)]),
    ),
  };
}
