/**
 * What the display routes share: who they are for (a display's `Access-Token`), the wire shapes
 * TRMNL's firmware reads, and the rule that a fault of the service is HTTP 503, never a body
 * `status` 500 (TRMNL's firmware erases its Wi-Fi and settings on that).
 */
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { toAppError } from "../../infra/http/envelope.ts";
import type { RawAuth } from "../../infra/http/raw.ts";

/**
 * A display's own key. Read from the headers only; it is checked by the service (an unknown,
 * revoked, malformed or empty key is 401; no header at all is null, which only the poll takes as
 * a key-less poll, keyless.ts). `Headers` are case-insensitive: `access-token` is the same.
 */
export const displayKey: RawAuth<string | null> = {
  access: {
    credentials: ["display"],
    errors: { 401: "Unknown, revoked or malformed `Access-Token`" },
  },
  check(_ctx, req) {
    return Promise.resolve(req.headers.get("access-token"));
  },
};

/** Runs a display route's work; anything but a client error becomes 503 (the device retries). */
export async function faultsAre503(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    const known = toAppError(error);
    if (known.status < 500) throw known;
    console.error("display request failed", String(error));
    throw new AppError("unavailable", "Service unavailable; try again later", {
      "Retry-After": "60",
    });
  }
}

/** `GET /api/display`'s 200 body (CONTRACT.md fields, TRMNL's names). */
export interface DisplayReply {
  status: 0 | 202;
  image_url: string;
  filename: string;
  refresh_rate: number;
  update_firmware: boolean;
  firmware_url: string | null;
  /** True only at the first poll after the owner's `POST /api/devices/{id}/reset`. */
  reset_firmware: boolean;
  special_function: string;
}
export const setupReplySchema = z.object({
  status: z.literal(200),
  api_key: z.string().meta({
    description: "The display's key (256 random bits), its `Access-Token`",
  }),
  friendly_id: z.string().meta({ description: "The claim code: 6 characters, valid 24 hours" }),
  image_url: z.string().meta({ description: "Signed URL of the claim screen" }),
  message: z.string(),
}).meta({ id: "DisplaySetup" });

export const displayReplySchema = z.object({
  status: z.union([z.literal(0), z.literal(202)]).meta({
    description: "0: claimed, showing its push; 202: not yet claimed (the claim screen), or a " +
      "poll without a key that its owner has not allowed (a screen saying how to give it its key)",
  }),
  image_url: z.string().meta({
    description: "Signed URL on this service, no header needed, valid 30 minutes",
  }),
  filename: z.string().meta({
    description: "SHA-256 of the image: changes exactly when the picture does",
  }),
  refresh_rate: z.number().int().meta({ description: "Seconds until the next poll" }),
  update_firmware: z.boolean().meta({
    description: "true when an active rollout fits the display and it reports another version " +
      "(at most once a day, never while its owner holds updates)",
  }),
  firmware_url: z.string().nullable().meta({
    description: "Signed URL of the build when `update_firmware`, valid 1 hour; else null",
  }),
  reset_firmware: z.boolean().meta({
    description: "True only at the first poll after the owner's `POST /api/devices/{id}/reset` " +
      "(the firmware erases its Wi-Fi and settings); never otherwise",
  }),
  special_function: z.enum(["none", "identify", "rewind", "restart_playlist"]).meta({
    description: "What the button does, as the firmware names it (the owner's `button-action`)",
  }),
}).meta({ id: "DisplayPoll" });

/** The headers TRMNL's firmware and clients send, for the document. */
export const pollHeaders = z.object({
  ID: z.string().optional().meta({
    description: "The display's MAC, `AA:BB:CC:DD:EE:FF`; without `Access-Token`, the display " +
      "the poll stands for (as far as its owner allows)",
  }),
  "Battery-Voltage": z.string().optional().meta({ description: "Volts, e.g. `4.12`" }),
  "percent-charged": z.string().optional().meta({ description: "Battery percent (Kindle)" }),
  RSSI: z.string().optional().meta({ description: "Wi-Fi signal, dBm" }),
  "FW-Version": z.string().optional(),
  Model: z.string().optional().meta({ description: "TRMNL's model name, e.g. `og`" }),
  Width: z.string().optional().meta({ description: "Panel width in pixels, 1 to 4096" }),
  Height: z.string().optional().meta({ description: "Panel height in pixels, 1 to 4096" }),
  special_function: z.string().optional().meta({
    description: "`true` after a press of the button: this poll carries out the owner's action",
  }),
});
