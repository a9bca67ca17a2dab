import { withExample } from "../../infra/http/operation.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { updatePluginSchema } from "./inputs.ts";
import { PLUGIN_ERRORS } from "./meta.ts";
import { pluginSchema } from "./views.ts";

/** PUT /api/plugins/{id}: any fields; those not sent keep their values. */
export const updatePlugin = userOrPatProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/plugins/{id}",
      tags: ["plugins"],
      summary: "Change a plugin",
      description: "Any of the fields of `POST /api/plugins`; `polling: null` removes the " +
        "polling settings of a plugin that no longer polls. New polling settings are fetched " +
        "at the next render.",
      errorResponses: {
        ...PLUGIN_ERRORS,
        400: "id is not a UUID, a field (the message names it), or a polling plugin without urls",
      },
    },
  })
  .input(withExample(updatePluginSchema.extend({ id: uuidParam }), {
    id: "01936f3e-8a4b-7c3d-9e2f-1a2b3c4d5e6f",
    refreshMinutes: 30,
  }))
  .output(pluginSchema)
  .mutation(({ ctx, input }) => {
    const { id, ...fields } = input;
    return ctx.services.plugins.update(ctx.caller.userId, id, fields);
  });
