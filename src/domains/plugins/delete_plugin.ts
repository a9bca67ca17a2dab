import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { PLUGIN_ERRORS } from "./meta.ts";

/** DELETE /api/plugins/{id}: 204; pushes already drawn from it stay in the history. */
export const deletePlugin = userOrPatProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/plugins/{id}",
      tags: ["plugins"],
      summary: "Delete a plugin",
      successDescription: "Deleted (no body); its webhook URL answers 404 from now on",
      errorResponses: PLUGIN_ERRORS,
    },
    status: 204,
  })
  .input(z.object({ id: uuidParam }))
  .output(z.void())
  .mutation(async ({ ctx, input }) => {
    await ctx.services.plugins.delete(ctx.caller.userId, input.id);
  });
