import { z } from "zod";
import { withExample } from "../../infra/http/operation.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { BUTTON_ERRORS } from "./meta.ts";
import { BUTTON_ACTIONS } from "./service.ts";
import { buttonSchema } from "./views.ts";

/** PUT /api/devices/{id}/button `{action}` (owner only). */
export const setButtonAction = userOrPatProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/devices/{id}/button",
      tags: ["displays"],
      summary: "Choose what a press of the display's button does",
      errorResponses: { ...BUTTON_ERRORS, 400: "Invalid body or device id" },
    },
  })
  .input(withExample(
    z.object({ id: uuidParam, action: z.enum(BUTTON_ACTIONS) }),
    { id: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10", action: "rewind" },
  ))
  .output(buttonSchema)
  .mutation(async ({ ctx, input }) => {
    await ctx.services.buttons.display(ctx.caller.userId, input.id);
    return await ctx.services.buttons.set(input.id, input.action);
  });
