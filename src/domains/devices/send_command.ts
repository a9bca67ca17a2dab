import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "./meta.ts";
import { TEXT_MAX } from "./service.ts";
import { commandSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /api/devices/{id}/cmd: a `text` command over MQTT `down/cmd`, recorded `delivered`. */
export const sendCommand = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/{id}/cmd",
      tags: ["devices"],
      summary: "Send a command to a device",
      errorResponses: {
        ...OWNER_ERRORS,
        400: "Unsupported kind, missing text or invalid device id",
        409: "The device is a display that polls over HTTP (transport http): no commands",
        503: "The MQTT broker is unreachable; nothing was delivered",
      },
    },
  })
  .input(withExample(
    z.object({
      id: uuidParam,
      kind: z.string().meta({ description: "`text` (the only kind)" }),
      // Checked by the service (required for `text`); stated here for the document.
      text: z.string().meta({ maxLength: TEXT_MAX }).optional(),
    }),
    { id: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10", kind: "text", text: "Dinner at seven" },
  ))
  .output(commandSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.devices.sendCommand(ctx.caller.userId, input.id, {
      kind: input.kind,
      text: input.text,
    })
  );
