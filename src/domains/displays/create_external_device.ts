import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { withExample } from "../../infra/http/operation.ts";
import { deviceSchema } from "../devices/views.ts";
import { NICKNAME_MAX } from "../devices/service.ts";
import { MAX_EXTERNAL_SIDE, MIN_SIDE, PROVIDERS } from "./external.ts";
import { BIT_DEPTHS } from "./views.ts";

const side = z.number().int().min(MIN_SIDE).max(MAX_EXTERNAL_SIDE);

/**
 * POST /api/devices/external: a display behind another provider (CONTRACT.md "Displays behind
 * another provider, and image feeds"), bound to the caller at once.
 */
export const createExternalDevice = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/external",
      tags: ["displays"],
      summary: "Add a display behind another provider (an image feed, TRMNL's hosted service)",
      description: "`image_feed`: the answer's `feedUrl` (shown here and by " +
        "`POST /api/devices/{id}/feed-token` only) answers the device's current picture as a " +
        "PNG for anything that fetches one URL (ESPHome, Home Assistant, a kiosk). " +
        "`trmnl_webhook`: each push published is posted to the TRMNL private plugin's webhook " +
        "as `merge_variables` (`image_url`, `title`, `pushId`); the URL is kept sealed and never " +
        "answered back. Pushes, history and `display-profile` work as on any display.",
      errorResponses: {
        400: "Unknown provider, missing or malformed credentials, size outside 16-4096",
        409: "The caller holds DISPLAYS_PER_USER displays already",
      },
    },
    status: 201,
  })
  .input(withExample(
    z.object({
      name: z.string().min(1).max(NICKNAME_MAX).meta({ description: "The device's nickname" }),
      provider: z.enum(PROVIDERS),
      width: side.optional().meta({ description: "Default 800" }),
      height: side.optional().meta({ description: "Default 480" }),
      bitDepth: z.union(BIT_DEPTHS.map((d) => z.literal(d))).optional().meta({
        description: "Bits of grey per pixel: 1, 2 or 4 (default 1)",
      }),
      credentials: z.object({
        webhookUrl: z.string().max(2048).meta({
          description: "`trmnl_webhook`: the private plugin's webhook URL " +
            "(`https://usetrmnl.com/api/custom_plugins/<uuid>`)",
        }),
      }).optional(),
    }),
    { name: "Hall ESPHome panel", provider: "image_feed", width: 800, height: 480, bitDepth: 1 },
  ))
  .output(z.object({
    device: deviceSchema,
    feedUrl: z.url().optional().meta({
      description: "`image_feed` only: the secret URL of its picture, shown once",
    }),
  }))
  .mutation(({ ctx, input }) => ctx.services.displays.external.create(ctx.caller.userId, input));
