/**
 * `GET /api/display`: what a display shows now (TRMNL's pull protocol, CONTRACT.md), by its key or,
 * sending none, by its MAC as far as its owner allows (`keyless.ts`).
 */
import { defineRawRoute, json } from "../../infra/http/raw.ts";
import { displayKey, displayReplySchema, faultsAre503, pollHeaders } from "./protocol.ts";

export const displayPoll = defineRawRoute({
  method: "GET",
  path: "/api/display",
  operationId: "display-poll",
  summary: "The image a display shows now",
  description: "A pending display gets its claim screen (`status` 202), a claimed one its push: " +
    "a queued push is published at the poll (like `push/refresh`), else the current one is " +
    "answered again. Its headers update the device's health and state. Never a body `status` " +
    "500, and `reset_firmware: true` only at the first poll after the owner's `POST /api/devices/{id}/reset`.\n\n" +
    "Without an `Access-Token` header at all (an empty or malformed one is 401), from an address " +
    "in DISPLAY_KEYLESS_NETWORKS (default the private and loopback ranges), the poll stands for " +
    "the display of its MAC (`ID`): a MAC no one holds gets a pending display, as `/api/setup` " +
    "makes it and counted in its limit (429 over it), and its claim screen; a claimed display " +
    "answers as with its key only when its owner set `keyless` in its display profile, else a " +
    "screen saying how to give the client its key (`status` 202, never the owner's pictures).",
  tags: ["displays"],
  auth: displayKey,
  headers: pollHeaders,
  responses: {
    200: { description: "What to show", content: { "application/json": displayReplySchema } },
    400: { description: "`Width` or `Height` out of 1 to 4096" },
    429: {
      description: "A poll without a key that would make a pending display, over the setup limit",
    },
    503: { description: "A fault of the service; the display retries" },
  },
  handle({ req, ctx, auth }) {
    return faultsAre503(async () =>
      json(await ctx.services.displays.polls.poll(auth, req.headers, ctx.ip))
    );
  },
});
