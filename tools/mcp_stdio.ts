/**
 * `deno task mcp`: the MCP server over stdio for a desktop assistant (issue 24). It bridges each
 * JSON-RPC message from stdin to the service's `/mcp` (Streamable HTTP) with DDS_TOKEN as the
 * bearer and writes the answers to stdout, so the tools run in the service, as its user, exactly
 * as over HTTP; this process holds no state and no database.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { helpAndExit } from "../src/infra/lib/usage.ts";

const USAGE = "usage: deno task mcp   (with DDS_URL and DDS_TOKEN in the environment)";
helpAndExit(
  Deno.args,
  `${USAGE}

The Model Context Protocol over stdio, for desktop assistants: every message goes to
DDS_URL/mcp with DDS_TOKEN (a personal access token, pat_...) as the bearer. Tools: list_devices,
list_templates, preview_template, show_note, push_template, add_note, push_image_url,
create_content, get_push, get_content (docs/integrations.md).

  DDS_URL    the service's user URL, e.g. https://displays.example.com
  DDS_TOKEN  a personal access token (Settings > Tokens, or POST /api/personal-access-tokens)`,
);

function fail(message: string): never {
  console.error(`mcp: ${message}`);
  Deno.exit(1);
}

const base = Deno.env.get("DDS_URL");
const token = Deno.env.get("DDS_TOKEN");
if (!base) fail("DDS_URL is not set (the service's URL, e.g. https://displays.example.com)");
if (!token) fail("DDS_TOKEN is not set (a personal access token, pat_...)");
let endpoint: URL;
try {
  // Relative to DDS_URL's path, so a service behind a path prefix works too.
  endpoint = new URL("mcp", base.endsWith("/") ? base : `${base}/`);
} catch {
  fail(`DDS_URL ${JSON.stringify(base)} is not a URL`);
}

const remote = new StreamableHTTPClientTransport(endpoint, {
  requestInit: { headers: { authorization: `Bearer ${token}` } },
});
const local = new StdioServerTransport();

/**
 * What a refusal says on stdio: a 401 names DDS_TOKEN (issue 34: "Error POSTing to endpoint"
 * left a newcomer guessing which setting was wrong).
 */
function refusalText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 401) return text;
  return `DDS_TOKEN was refused by ${endpoint.origin} (401): set DDS_TOKEN to a live personal access token (pat_..., POST /api/personal-access-tokens). ${text}`;
}

/** A request the service refused (401, unreachable): answered on stdio as a JSON-RPC error. */
function answerError(message: JSONRPCMessage, error: unknown) {
  const text = refusalText(error);
  if ((error as { code?: unknown } | null)?.code === 401) console.error(`mcp: ${text}`);
  if (!("id" in message) || !("method" in message)) return;
  local.send({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: text } })
    .catch(() => {});
}

local.onmessage = (message: JSONRPCMessage) => {
  remote.send(message).catch((error: unknown) => answerError(message, error));
};
remote.onmessage = (message: JSONRPCMessage) => {
  local.send(message).catch(() => {});
};
remote.onerror = (error: Error) => console.error(`mcp: ${error.message}`);
local.onclose = () => {
  remote.close().finally(() => Deno.exit(0));
};

await remote.start();
await local.start();
