import { z } from "zod";
import { withExample } from "../../infra/http/operation.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { PLUGIN_VIEWS } from "./inputs.ts";
import { PLUGIN_ERRORS } from "./meta.ts";

/** POST /api/plugins/{id}/push: the plugin drawn once as a push of one of the caller's devices. */
export const pushPlugin = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/plugins/{id}/push",
      tags: ["plugins"],
      summary: "Show a plugin on a device",
      description: "Draws the plugin's view with its data now, for the device's panel (its " +
        "display profile: size, grey depth, rotation), as a push of that device: delivered, " +
        "confirmed and listed in its history like any push. To keep a display current, put the " +
        "plugin on a playlist.",
      errorResponses: {
        ...PLUGIN_ERRORS,
        400: "id or deviceId is not a UUID",
        403: "The device is another user's",
        404: "Plugin not found, or Device not found",
      },
    },
    status: 201,
  })
  .input(withExample(
    z.object({
      id: uuidParam,
      deviceId: uuidParam,
      view: z.enum(PLUGIN_VIEWS).optional().meta({ description: "Default `full`" }),
    }),
    {
      id: "01936f3e-8a4b-7c3d-9e2f-1a2b3c4d5e6f",
      deviceId: "01936f3e-0000-7c3d-9e2f-1a2b3c4d5e6f",
    },
  ))
  .output(
    z.object({
      pushId: z.uuid(),
      deviceId: z.uuid(),
      status: z.string().meta({ description: "PREPARE until its render is done" }),
    }).meta({ id: "PluginPush" }),
  )
  .mutation(({ ctx, input }) =>
    ctx.services.plugins.push(ctx.caller.userId, input.id, {
      deviceId: input.deviceId,
      view: input.view,
    })
  );
