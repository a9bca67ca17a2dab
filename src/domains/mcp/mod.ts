/**
 * The MCP server's face (issue 24): `POST /mcp` on the user port. An integration surface over
 * the other domains' services, owning no tables; `deno task mcp` (tools/mcp_stdio.ts) is its
 * stdio bridge for desktop assistants.
 */
import { defineDomain } from "../../face.ts";
import { mcpRoute } from "./route.ts";

export const mcp = defineDomain({
  name: "mcp",
  tags: {
    integrations:
      "Assistants over the Model Context Protocol at /mcp (JSON-RPC, not REST; docs/integrations.md)",
  },
  rawRoutes: [mcpRoute],
});
