import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { AUTH_ERRORS } from "./meta.ts";
import { pluginSchema } from "./views.ts";

/** GET /api/plugins: the caller's plugins, newest first. */
export const listPlugins = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/plugins",
      tags: ["plugins"],
      summary: "List plugins",
      errorResponses: AUTH_ERRORS,
    },
  })
  .input(z.void())
  .output(z.array(pluginSchema))
  .query(({ ctx }) => ctx.services.plugins.list(ctx.caller.userId));
