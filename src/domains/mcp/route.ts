/**
 * `POST /mcp`: the MCP server over Streamable HTTP on the user port (issue 24). The bearer (a PAT
 * or a user access token, nothing else) is checked before any of the body is read, and the body
 * is read with the JSON limit; only then does a fresh server and transport handle the one
 * JSON-RPC message or batch (stateless mode: any API process answers any request; see
 * docs/decisions.md "MCP server").
 *
 * The MCP SDK and the server's tools load with the first request (issue 26): ~16 MB of the
 * request thread at rest, and ~100 ms of every start, for an endpoint many processes never serve.
 */
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { callerAuth, defineRawRoute } from "../../infra/http/raw.ts";
import { JSON_BODY_LIMIT } from "../../infra/http/body.ts";
import { createLogger, type Logger } from "../../infra/http/log.ts";
import { LinkFetcher } from "../../infra/outbound/fetch_link.ts";

let loading:
  | Promise<
    [
      typeof import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
      typeof import("./server.ts"),
    ]
  >
  | undefined;
/** The SDK's transport and this domain's server, imported once. */
const loadMcp = () =>
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("./server.ts"),
  ]);

/** One fetcher for every request: public addresses only, as for link assets. */
const links = new LinkFetcher();
const loggers = new Map<string, Logger>();
const loggerOf = (level: "info" | "silent") =>
  loggers.get(level) ?? loggers.set(level, createLogger(level)).get(level)!;

/** CONTRACT.md: one MCP request carries at most this many JSON-RPC messages, as a `/trpc` batch. */
export const MCP_MAX_BATCH = 10;

/**
 * The number of messages of a body that is a JSON-RPC batch (an array), else null: a single
 * message, or a body that is not JSON (the transport answers its parse error).
 */
function batchLength(body: Uint8Array): number | null {
  // A batch starts with "[" after any whitespace; anything else is one message or not JSON.
  let i = 0;
  while (
    i < body.length &&
    (body[i] === 0x20 || body[i] === 0x09 || body[i] === 0x0a || body[i] === 0x0d)
  ) i++;
  if (body[i] !== 0x5b) return null;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body));
    return Array.isArray(parsed) ? parsed.length : null;
  } catch {
    return null;
  }
}

const jsonRpc = z.object({ jsonrpc: z.literal("2.0") }).loose().meta({
  description: "A JSON-RPC 2.0 message of the Model Context Protocol (or a batch of them)",
});

export const mcpRoute = defineRawRoute({
  method: "POST",
  path: "/mcp",
  operationId: "mcp-post",
  summary: "Model Context Protocol (Streamable HTTP, stateless)",
  description: "The MCP endpoint for assistants (docs/integrations.md): JSON-RPC messages in, " +
    "JSON answers out. The request must accept `application/json` and `text/event-stream`. " +
    `A batch carries at most ${MCP_MAX_BATCH} messages (a larger one is 400 before any runs). ` +
    "Not a REST operation; listed here for its credential and limits.",
  tags: ["integrations"],
  auth: callerAuth(["user", "pat"]),
  body: {
    kind: "bytes",
    contentType: "application/json",
    limit: JSON_BODY_LIMIT,
    docSchema: jsonRpc,
    example: { jsonrpc: "2.0", id: 1, method: "tools/list" },
  },
  responses: {
    200: { description: "The JSON-RPC answer", content: { "application/json": jsonRpc } },
    202: { description: "A notification or response was accepted (no body)" },
    406: { description: "The request does not accept application/json and text/event-stream" },
    415: { description: "The body is not sent as application/json" },
  },
  async handle({ req, ctx, auth, body }) {
    // CONTRACT.md: a larger batch is 400 before any message is handled (each may be a tool call
    // that renders a push): the batch size bounds the work of one request, as for `/trpc`.
    const messages = batchLength(body);
    if (messages !== null && messages > MCP_MAX_BATCH) {
      throw new AppError(
        "invalid_request",
        `A batch of ${messages} messages is over the limit of ${MCP_MAX_BATCH}`,
      );
    }
    const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp();
    const server = createMcpServer({
      services: ctx.services,
      links,
      log: loggerOf(ctx.services.config.logLevel),
      signal: req.signal,
    }, auth.userId);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      // The body is already read (and bounded); the transport parses this copy.
      const copy = new Request(req.url, { method: "POST", headers: req.headers, body });
      return await transport.handleRequest(copy);
    } finally {
      await server.close();
    }
  },
});
