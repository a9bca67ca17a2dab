import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { PLUGIN_ERRORS } from "./meta.ts";
import { pluginDataSchema } from "./views.ts";

/** GET /api/plugins/{id}/data: the merge variables its markup sees now. */
export const getPluginData = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/plugins/{id}/data",
      tags: ["plugins"],
      summary: "The data a plugin's markup sees",
      description: "A static plugin's `staticData`; a webhook plugin's stored merge variables; a " +
        "polling plugin's last good answer (nothing is fetched here), with the last poll's error.",
      errorResponses: PLUGIN_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(pluginDataSchema)
  .query(({ ctx, input }) => ctx.services.plugins.data(ctx.caller.userId, input.id));
