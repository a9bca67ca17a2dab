/** CORS (SPEC 5.2, 8): allowed origins from CORS_ORIGINS; X-Renewed-Token is exposed. */

const EXPOSED = "X-Renewed-Token, X-Request-Id, Retry-After";
// Mcp-Protocol-Version: what the MCP SDK's client sends after `initialize` (a web assistant on an
// allowed origin calling /mcp, issue 24).
const ALLOWED_HEADERS =
  "Authorization, Content-Type, Idempotency-Key, X-Request-Id, Mcp-Protocol-Version";
const ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

/** Adds the CORS response headers when the request's origin is allowed. */
export function applyCors(origins: readonly string[], req: Request, headers: Headers): void {
  const origin = req.headers.get("origin");
  headers.append("vary", "Origin");
  if (!origin || !(origins.includes(origin) || origins.includes("*"))) return;
  headers.set("access-control-allow-origin", origin);
  headers.set("access-control-expose-headers", EXPOSED);
}

/** The answer to a preflight request. */
export function preflight(origins: readonly string[], req: Request): Response {
  const headers = new Headers();
  applyCors(origins, req, headers);
  if (headers.has("access-control-allow-origin")) {
    headers.set("access-control-allow-methods", ALLOWED_METHODS);
    headers.set("access-control-allow-headers", ALLOWED_HEADERS);
    headers.set("access-control-max-age", "600");
  }
  return new Response(null, { status: 204, headers });
}
