import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { BUTTON_ERRORS } from "./meta.ts";
import { buttonSchema } from "./views.ts";

/** GET /api/devices/{id}/button (owner only). */
export const getButtonAction = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/button",
      tags: ["displays"],
      summary: "What a press of the display's button does",
      errorResponses: BUTTON_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(buttonSchema)
  .query(async ({ ctx, input }) => {
    await ctx.services.buttons.display(ctx.caller.userId, input.id);
    return await ctx.services.buttons.get(input.id);
  });
