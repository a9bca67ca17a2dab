// deno-lint-ignore-file no-explicit-any -- replies are untyped JSON; tests assert their shape
/**
 * A tiny HTTP client for the tests: JSON in, status + headers + parsed body out. Every reply is
 * checked against the server's served OpenAPI document (./openapi.ts): a reply the document does
 * not describe fails the test that received it.
 */
import { assertDocumented } from "./openapi.ts";

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  contentType: string | null;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: BodyInit;
}

/** Calls `method path` on the server and reads the whole reply. */
export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: BodyInit | undefined = options.raw;
  if (options.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(options.body);
  }
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  await assertDocumented(baseUrl, method, path, { status: res.status, headers: res.headers, text });
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch { /* not JSON: keep the text */ }
  return {
    status: res.status,
    headers: res.headers,
    body: parsed as T,
    contentType: res.headers.get("content-type"),
  };
}

/** A client bound to one server. */
export function client(baseUrl: string) {
  return {
    get: <T = any>(path: string, o?: CallOptions) => call<T>(baseUrl, "GET", path, o),
    post: <T = any>(path: string, o?: CallOptions) => call<T>(baseUrl, "POST", path, o),
    put: <T = any>(path: string, o?: CallOptions) => call<T>(baseUrl, "PUT", path, o),
    patch: <T = any>(path: string, o?: CallOptions) => call<T>(baseUrl, "PATCH", path, o),
    delete: <T = any>(path: string, o?: CallOptions) => call<T>(baseUrl, "DELETE", path, o),
  };
}

export type Client = ReturnType<typeof client>;

let counter = 0;

/** Registers a fresh user and returns its tokens and profile. */
export async function registerUser(api: Client, prefix = "user") {
  const n = `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;
  const password = "correct horse battery";
  const reply = await api.post("/auth/register", {
    body: { email: `${n}@example.com`, username: n, password },
  });
  if (reply.status !== 201) throw new Error(`register failed: ${JSON.stringify(reply.body)}`);
  return {
    ...reply.body as {
      accessToken: string;
      refreshToken: string;
      user: { id: string; email: string; username: string };
    },
    password,
  };
}
