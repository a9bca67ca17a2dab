import { withExample } from "../../infra/http/operation.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { createPluginSchema } from "./inputs.ts";
import { AUTH_ERRORS } from "./meta.ts";
import { pluginSchema } from "./views.ts";

/** POST /api/plugins: 201 with the plugin (a webhook plugin's `webhookUrl` included). */
export const createPlugin = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/plugins",
      tags: ["plugins"],
      summary: "Create a plugin",
      description: "A screen drawn from Liquid markup (TRMNL's dialect) and data: `static` " +
        "(`staticData`), `webhook` (posted to its `webhookUrl`) or `polling` (its URLs fetched " +
        "when a render needs data older than `refreshMinutes`).",
      errorResponses: {
        ...AUTH_ERRORS,
        400: "A field (the message names it), a polling plugin without urls, or over 100 plugins",
      },
    },
    status: 201,
  })
  .input(withExample(createPluginSchema, {
    name: "Living room",
    strategy: "webhook",
    markup: {
      full: '<div class="layout"><div class="item"><span class="value value--xlarge">' +
        '{{ temperature }}°</span><span class="label">{{ room }}</span></div></div>',
    },
  }))
  .output(pluginSchema)
  .mutation(({ ctx, input }) => ctx.services.plugins.create(ctx.caller.userId, input));
