/** `GET /api/display`: what a display shows now (TRMNL's pull protocol, CONTRACT.md). */
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
    "500, and `reset_firmware: true` only at the first poll after the owner's `POST /api/devices/{id}/reset`.",
  tags: ["displays"],
  auth: displayKey,
  headers: pollHeaders,
  responses: {
    200: { description: "What to show", content: { "application/json": displayReplySchema } },
    400: { description: "`Width` or `Height` out of 1 to 4096" },
    503: { description: "A fault of the service; the display retries" },
  },
  handle({ req, ctx, auth }) {
    return faultsAre503(async () =>
      json(await ctx.services.displays.polls.poll(auth, req.headers))
    );
  },
});
