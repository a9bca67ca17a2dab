/** The owner's choice of a display's button action (issue 24). */
import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { withExample } from "../../infra/http/operation.ts";
import { OWNER_ERRORS } from "../devices/meta.ts";
import { BUTTON_ACTIONS } from "./service.ts";

const buttonSchema = z.object({
  action: z.enum(BUTTON_ACTIONS).meta({
    description: "What a press does: `rewind` the previous push, `next` the following one, " +
      "`identify` a screen naming the display, `none` nothing",
  }),
}).meta({ id: "ButtonAction" });

const errors = { ...OWNER_ERRORS, 404: "Device not found, or not a display that polls" };

/** GET /api/devices/{id}/button (owner only). */
export const getButtonAction = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/button",
      tags: ["displays"],
      summary: "What a press of the display's button does",
      errorResponses: errors,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(buttonSchema)
  .query(async ({ ctx, input }) => {
    await ctx.services.buttons.display(ctx.caller.userId, input.id);
    return await ctx.services.buttons.get(input.id);
  });

/** PUT /api/devices/{id}/button `{action}` (owner only). */
export const setButtonAction = userOrPatProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/devices/{id}/button",
      tags: ["displays"],
      summary: "Choose what a press of the display's button does",
      errorResponses: { ...errors, 400: "Invalid body or device id" },
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
