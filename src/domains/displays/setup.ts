/** `GET /api/setup`: a display's first call (TRMNL's pull protocol, CONTRACT.md). */
import { z } from "zod";
import { defineRawRoute, json, publicRoute } from "../../infra/http/raw.ts";
import { faultsAre503, setupReplySchema } from "./protocol.ts";

export const displaySetup = defineRawRoute({
  method: "GET",
  path: "/api/setup",
  operationId: "display-setup",
  summary: "Set up a display: its key and claim code",
  description: "Called by a display with its MAC in `ID`. An unknown MAC gets a pending display; " +
    "each setup answers a new `api_key` and the display's earlier keys stop at once; a claimed " +
    "MAC starts a re-pair that only its owner can claim (its current key keeps working until " +
    "then). Limited per address, an IPv6 one by its /64 (DISPLAY_SETUPS_PER_MINUTE).",
  tags: ["displays"],
  auth: publicRoute,
  headers: z.object({
    ID: z.string().meta({ description: "The display's MAC, `AA:BB:CC:DD:EE:FF` (any case)" }),
    "FW-Version": z.string().optional(),
    Model: z.string().optional(),
  }),
  responses: {
    200: {
      description: "The display's key and claim code",
      content: { "application/json": setupReplySchema },
    },
    400: { description: "Missing or malformed `ID`" },
    429: { description: "Too many setups from this address" },
    503: { description: "A fault of the service; the display retries" },
  },
  handle({ req, ctx }) {
    return faultsAre503(async () =>
      json(await ctx.services.displays.pairing.setup(req.headers.get("id"), ctx.ip))
    );
  },
});
