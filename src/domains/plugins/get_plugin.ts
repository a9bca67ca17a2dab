import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { PLUGIN_ERRORS } from "./meta.ts";
import { pluginSchema } from "./views.ts";

/** GET /api/plugins/{id}: another user's plugin is 404. */
export const getPlugin = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/plugins/{id}",
      tags: ["plugins"],
      summary: "Get a plugin",
      errorResponses: PLUGIN_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(pluginSchema)
  .query(({ ctx, input }) => ctx.services.plugins.get(ctx.caller.userId, input.id));
