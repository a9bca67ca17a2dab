import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { withExample } from "../../infra/http/operation.ts";
import type { Surface } from "../../infra/trpc/surfaces.ts";
import { targetlessMeta } from "./meta.ts";

/**
 * POST {prefix}/presentations/{id}/deliveries (CONTRACT.md "Displays people already own"): the
 * stored Scene becomes a push of one of the caller's devices, drawn for its panel (a display's
 * profile, 800x480 for an MQTT device), with no AI call.
 */
export const deliverPresentation = (surface: Surface) =>
  surface.procedure
    .meta(targetlessMeta(
      surface,
      "POST",
      "/presentations/{id}/deliveries",
      "Send a presentation's Scene to a display",
      {
        400: "invalid_request: id or displayId is not a UUID",
        404: "presentation_not_found or not_found: the presentation or the device is missing or " +
          "not the caller's",
        409: "invalid_state: the presentation has no Scene (display-bound, or not generated yet)",
      },
      { status: 202, successDescription: "Accepted: the push, rendering in PREPARE" },
    ))
    .input(withExample(
      z.object({ id: uuidParam, displayId: uuidParam }),
      {
        id: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10",
        displayId: "0193a0c0-1b2c-7d3e-8f4a-5b6c7d8e9f01",
      },
    ))
    .output(z.object({ pushId: z.uuid() }))
    .mutation(({ ctx, input }) =>
      ctx.services.targetless.presentations.deliver(ctx.caller.userId, input.id, input.displayId)
    );
