// deno-lint-ignore-file no-explicit-any -- OpenAPI documents are walked as plain JSON
/**
 * Every reply the integration tests receive is checked against the document the server serves
 * (issue 17): the status is declared for the operation, the body matches its media type and
 * schema, and the declared required headers are present. `call` (./http.ts) runs it on every
 * request; a test that uses `fetch` directly calls `assertDocumented` itself.
 *
 * Which document: `/internal/factory/*` paths are checked against the factory console's
 * (`/internal/factory/openapi.json`), everything else against `/openapi.json` of the same server.
 * `/trpc` is not a REST operation and is not checked. A path or method no operation matches
 * must be answered 404 or 405 (the pre-router's answers); anything else means an endpoint the
 * document does not list.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** The parts of a reply that are checked. */
export interface CheckedReply {
  status: number;
  headers: Headers;
  /** The raw body text ("" when empty). */
  text: string;
}

interface Loaded {
  doc: any;
  ajv: Ajv2020;
  routes: Array<{ template: string; pattern: RegExp; params: number }>;
  validators: Map<string, ValidateFunction>;
}

const documents = new Map<string, Promise<Loaded | null>>();

function compile(template: string): RegExp {
  const source = template
    .replace(/[.*+?^${}()|[\]\\]/g, (ch) => ch === "{" || ch === "}" ? ch : `\\${ch}`)
    .replace(/\{(\w+)\}/g, "[^/]+");
  return new RegExp(`^${source}/?$`);
}

async function load(url: string): Promise<Loaded | null> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch {
    return null;
  }
  if (res.status === 404) {
    await res.body?.cancel();
    return null; // no document here (the factory port's /openapi.json)
  }
  if (res.status !== 200) {
    // A document that cannot be built must not switch the checks off.
    throw new Error(`${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  }
  const doc = await res.json();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // Media-type and OpenAPI-only formats carry no rule the body could break.
  for (const format of ["binary", "byte", "int32", "int64", "float", "double"]) {
    ajv.addFormat(format, true);
  }
  ajv.addSchema({ ...doc, $id: "openapi.json" });
  const routes = Object.keys(doc.paths ?? {}).map((template) => ({
    template,
    pattern: compile(template),
    params: (template.match(/\{/g) ?? []).length,
  }))
    // A literal segment wins over a parameter (`/devices:batch-import` over `/devices/{id}`).
    .sort((a, b) => a.params - b.params);
  return { doc, ajv, routes, validators: new Map() };
}

function documentFor(baseUrl: string, path: string): Promise<Loaded | null> {
  const url = path.startsWith("/internal/factory/") || path === "/internal/factory"
    ? `${baseUrl}/internal/factory/openapi.json`
    : `${baseUrl}/openapi.json`;
  let loaded = documents.get(url);
  if (!loaded) {
    loaded = load(url);
    documents.set(url, loaded);
  }
  return loaded;
}

function pointer(parts: string[]): string {
  return "#/" + parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
}

function mediaMatches(declared: string, actual: string): boolean {
  if (declared === actual) return true;
  const [type, sub] = declared.split("/");
  return sub === "*" && actual.startsWith(`${type}/`);
}

/**
 * Throws when the reply of `method path` on the server at `baseUrl` disagrees with the served
 * document, naming the operation, the status and what differs.
 */
export async function assertDocumented(
  baseUrl: string,
  method: string,
  path: string,
  reply: CheckedReply,
): Promise<void> {
  const pathname = new URL(path, "http://x").pathname;
  // `/trpc` is the typed client's surface; OPTIONS and HEAD are answered by the pre-router.
  if (pathname === "/trpc" || pathname.startsWith("/trpc/")) return;
  if (method === "OPTIONS" || method === "HEAD") return;
  const loaded = await documentFor(baseUrl, pathname);
  const verb = method.toLowerCase();
  // The most specific template that matches decides, as in the service (a literal path with
  // another method is 405, not the parameter's operation: issue 34).
  const matched = loaded?.routes.find((r) => r.pattern.test(pathname));
  const route = matched && loaded?.doc.paths[matched.template][verb] ? matched : undefined;
  if (!loaded || !route) {
    if (reply.status === 404 || reply.status === 405) return;
    if (!loaded) return; // not one of the service's listeners
    throw new Error(
      `${method} ${pathname} answered ${reply.status}, but no operation of the served document ` +
        `matches it`,
    );
  }
  const operation = loaded.doc.paths[route.template][verb];
  const name = `${operation.operationId} (${method} ${route.template})`;
  const response = operation.responses[String(reply.status)];
  if (!response) {
    throw new Error(
      `${name} answered ${reply.status}, which the document does not declare ` +
        `(declared: ${Object.keys(operation.responses).join(", ")}); body: ${
          reply.text.slice(0, 300)
        }`,
    );
  }
  for (const [header, spec] of Object.entries<any>(response.headers ?? {})) {
    if (spec.required && !reply.headers.has(header)) {
      throw new Error(`${name} answered ${reply.status} without its required header ${header}`);
    }
  }
  const content = response.content as Record<string, any> | undefined;
  if (!content) {
    if (reply.text !== "") {
      throw new Error(
        `${name} answered ${reply.status} with a body the document says is empty: ` +
          reply.text.slice(0, 300),
      );
    }
    return;
  }
  const actual = (reply.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const media = Object.keys(content).find((declared) => mediaMatches(declared, actual));
  if (!media) {
    throw new Error(
      `${name} answered ${reply.status} as ${actual || "(no content type)"}; the document ` +
        `declares ${Object.keys(content).join(", ")}`,
    );
  }
  if (!/^application\/(.+\+)?json$/.test(media) || !content[media].schema) return;
  let body: unknown;
  try {
    body = JSON.parse(reply.text);
  } catch {
    throw new Error(`${name} answered ${reply.status} with a body that is not JSON`);
  }
  const at = pointer([
    "paths",
    route.template,
    verb,
    "responses",
    String(reply.status),
    "content",
    media,
    "schema",
  ]);
  let validate = loaded.validators.get(at);
  if (!validate) {
    validate = loaded.ajv.compile({ $ref: `openapi.json${at}` });
    loaded.validators.set(at, validate);
  }
  if (!validate(body)) {
    const errors = (validate.errors ?? [])
      .map((e) =>
        `${e.instancePath || "(body)"} ${e.message}${
          e.params ? ` ${JSON.stringify(e.params)}` : ""
        }`
      )
      .slice(0, 5)
      .join("; ");
    throw new Error(
      `${name} answered ${reply.status} with a body that does not match its schema: ${errors}; ` +
        `body: ${reply.text.slice(0, 500)}`,
    );
  }
}

/**
 * `fetch` for a test that needs the raw Response (bytes, streams, redirects): the reply is
 * checked like every `call`, then handed back with its body intact.
 */
export async function fetchChecked(input: string | URL, init: RequestInit = {}): Promise<Response> {
  const url = new URL(input);
  const res = await fetch(url, init);
  const bytes = new Uint8Array(await res.arrayBuffer());
  await assertDocumented(url.origin, init.method ?? "GET", url.pathname + url.search, {
    status: res.status,
    headers: res.headers,
    text: new TextDecoder().decode(bytes),
  });
  return new Response(res.status === 204 || res.status === 304 ? null : bytes, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}
