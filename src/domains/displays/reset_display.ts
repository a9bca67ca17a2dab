import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "../devices/meta.ts";

/**
 * POST /api/devices/{id}/reset: the owner asks their display to reset itself. Its next poll
 * answers `reset_firmware: true` (once): TRMNL's firmware then erases its Wi-Fi and settings and
 * sets itself up again (a re-pair). The only way the service ever sends it.
 */
export const resetDisplay = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/{id}/reset",
      tags: ["displays"],
      summary: "Reset a display at its next poll (erases its Wi-Fi and settings)",
      errorResponses: {
        ...OWNER_ERRORS,
        409: "The device is not a display that polls (transport mqtt)",
      },
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    ctx.services.displays.profiles.requestReset(ctx.caller.userId, input.id)
  );
