/** `POST /api/log`: a display's own log entries (TRMNL's firmware, both of its shapes). */
import { z } from "zod";
import { defineRawRoute } from "../../infra/http/raw.ts";
import { displayKey, faultsAre503, pollHeaders } from "./protocol.ts";
import { LOG_BODY_LIMIT } from "./logs.ts";

const entry = z.record(z.string(), z.unknown());

export const displayLog = defineRawRoute({
  method: "POST",
  path: "/api/log",
  operationId: "display-log",
  summary: "Send a display's log entries",
  description: 'Accepts `{"logs":[...]}` and firmware 1.5\'s `{"log":{"logs_array":[...]}}` ' +
    "up to 64 KiB. The owner reads them with `GET /api/devices/{id}/logs`; the last 1,000 " +
    "entries of a display are kept.",
  tags: ["displays"],
  auth: displayKey,
  headers: pollHeaders.pick({ ID: true }),
  body: {
    kind: "json",
    limit: LOG_BODY_LIMIT,
    schema: z.union([
      z.object({ logs: z.array(entry) }).loose(),
      z.object({ log: z.object({ logs_array: z.array(entry) }).loose() }).loose(),
    ]),
    example: {
      logs: [{
        id: 1,
        message: "Wi-Fi connected",
        level: "info",
        created_at: 1795686978,
        source_path: "src/bl.cpp",
        source_line: 312,
        wifi_signal: -61,
        battery_voltage: 4.02,
        firmware_version: "1.6.2",
      }],
    },
  },
  responses: {
    204: { description: "Accepted" },
    503: { description: "A fault of the service; the display retries" },
  },
  handle({ ctx, auth, body }) {
    return faultsAre503(async () => {
      await ctx.services.displays.logs.receive(auth, body);
      return new Response(null, { status: 204 });
    });
  },
});
