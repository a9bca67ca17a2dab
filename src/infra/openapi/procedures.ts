/**
 * The OpenAPI operation of each REST procedure, from the schemas and meta that run it: the input
 * split the way trpc-to-openapi reads requests (path keys from the path; the rest from the query
 * on GET and DELETE, from the JSON body otherwise), the output as the success body, `status` and
 * `statuses` as the success statuses, `access` as the security and its 401/403.
 */
import type { AnyProcedure, AnyRouter } from "@trpc/server";
import { z } from "zod";
import type { ZodOpenApiOperationObject } from "zod-openapi";
import {
  type BodySpec,
  exampleOf,
  type HttpMethod,
  operationObject,
  type ResponseSpec,
} from "../http/operation.ts";
import type { ApiMeta } from "../trpc/init.ts";

/** A documented operation: where it is served and its zod-openapi object. */
export interface DocumentedOperation {
  method: HttpMethod;
  path: string;
  doc: ZodOpenApiOperationObject;
}

const BODYLESS = new Set(["GET", "DELETE"]);

function kind(schema: unknown): string | undefined {
  return (schema as { _zod?: { def?: { type?: string } } })?._zod?.def?.type;
}

/** The object inside `optional`/`default` wrappers, or the schema itself. */
function unwrap(schema: z.ZodType): z.ZodType {
  const type = kind(schema);
  if (type === "optional" || type === "default" || type === "prefault") {
    return unwrap((schema as z.ZodOptional).unwrap() as z.ZodType);
  }
  return schema;
}

function inputsOf(procedure: AnyProcedure): z.ZodType[] {
  return (procedure._def as unknown as { inputs: z.ZodType[] }).inputs.map(unwrap);
}

function inputOf(procedure: AnyProcedure): z.ZodObject | undefined {
  const inputs = inputsOf(procedure);
  const objects = inputs.filter((schema) =>
    !["void", "undefined", "never"].includes(kind(schema)!)
  );
  if (!objects.length) return undefined;
  for (const schema of objects) {
    if (kind(schema) !== "object") throw new Error("a REST procedure's input must be a z.object");
  }
  if (objects.length === 1) return objects[0] as z.ZodObject;
  return z.object(Object.assign({}, ...objects.map((o) => (o as z.ZodObject).shape)));
}

/** The example of the body: the inputs' examples (`withExample`) without the path keys. */
function bodyExample(procedure: AnyProcedure, isBody: (key: string) => boolean): unknown {
  const examples = inputsOf(procedure).map(exampleOf).filter((e) => e !== undefined);
  if (!examples.length) return undefined;
  const merged: Record<string, unknown> = Object.assign({}, ...examples);
  return Object.fromEntries(Object.entries(merged).filter(([key]) => isBody(key)));
}

function pick(schema: z.ZodObject, keys: (key: string) => boolean): z.ZodObject {
  const mask: Record<string, true> = Object.fromEntries(
    Object.keys(schema.shape).filter(keys).map((k) => [k, true] as const),
  );
  const dropped = Object.keys(schema.shape).length - Object.keys(mask).length;
  if (!dropped) return schema;
  try {
    return schema.pick(mask);
  } catch {
    // A refined object cannot be picked from; its shape can.
    return z.object(Object.fromEntries(Object.entries(schema.shape).filter(([k]) => mask[k])));
  }
}

function successResponse(procedure: AnyProcedure, meta: ApiMeta): Record<number, ResponseSpec> {
  const output = (procedure._def as unknown as { output?: z.ZodType }).output;
  // A procedure that only ever refuses (a retired endpoint) has no success response.
  if (!output || kind(output) === "never") return {};
  const status = meta.status ?? 200;
  const openapi = meta.openapi!;
  const body = status === 204 || kind(output) === "void"
    ? undefined
    : { "application/json": output };
  const success: ResponseSpec = {
    description: openapi.successDescription ?? "Success",
    ...(body ? { content: body } : {}),
    ...(openapi.responseHeaders ? { headers: openapi.responseHeaders } : {}),
  };
  const out: Record<number, ResponseSpec> = { [status]: success };
  for (const [other, description] of Object.entries(meta.statuses ?? {})) {
    out[Number(other)] = { ...success, description };
  }
  return out;
}

/** The errors a procedure declares, as responses (the envelope is added by `operationObject`). */
function errorResponses(meta: ApiMeta): Record<number, ResponseSpec> {
  const declared = meta.openapi?.errorResponses ?? {};
  const entries = Array.isArray(declared)
    ? declared.map((status) => [status, "Error"] as const)
    : Object.entries(declared);
  return Object.fromEntries(entries.map(([status, description]) => [status, { description }]));
}

/** The operation of one procedure with OpenAPI meta. */
export function procedureOperation(name: string, procedure: AnyProcedure): DocumentedOperation {
  const meta = procedure._def.meta as ApiMeta;
  const openapi = meta.openapi!;
  if (!meta.access) {
    throw new Error(
      `${name}: build it from a base procedure of src/infra/trpc/auth.ts (no access)`,
    );
  }
  const method = openapi.method as HttpMethod;
  const pathKeys = [...openapi.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const input = inputOf(procedure);
  const isPath = (key: string) => pathKeys.includes(key);
  const rest = input && pick(input, (key) => !isPath(key));
  const hasRest = rest && Object.keys(rest.shape).length > 0;
  let body: BodySpec | undefined;
  const responses: Record<number, ResponseSpec> = {};
  if (!BODYLESS.has(method)) {
    // The pre-router reads every POST/PUT/PATCH body (src/infra/http/handler.ts): an empty one is
    // `{}`, anything else must be JSON under 1 MiB, whether or not the procedure has fields.
    if (hasRest) {
      body = {
        contentType: "application/json",
        schema: rest,
        required: !rest.safeParse({}).success,
        limited: true,
        example: bodyExample(procedure, (key) => !isPath(key)),
      };
    } else {
      responses[400] = { description: "Body is not JSON" };
      responses[413] = { description: "Request body over its size limit" };
    }
  }
  return {
    method,
    path: openapi.path,
    doc: operationObject({
      method,
      path: openapi.path,
      operationId: openapi.operationId ?? name.replace(/\./g, "-"),
      summary: openapi.summary ?? name,
      description: openapi.description,
      tags: openapi.tags ?? [],
      deprecated: openapi.deprecated,
      access: meta.access,
      params: {
        path: input && pathKeys.length ? pick(input, isPath) : undefined,
        query: BODYLESS.has(method) && hasRest ? rest : undefined,
        header: openapi.requestHeaders,
      },
      body,
      responses: { ...responses, ...successResponse(procedure, meta), ...errorResponses(meta) },
    }),
  };
}

/** Every REST procedure of a router, in declaration order. */
export function procedureOperations(router: AnyRouter): DocumentedOperation[] {
  const out: DocumentedOperation[] = [];
  for (const [name, procedure] of Object.entries(router._def.procedures)) {
    const p = procedure as AnyProcedure;
    if ((p._def.meta as ApiMeta | undefined)?.openapi) out.push(procedureOperation(name, p));
  }
  return out;
}
