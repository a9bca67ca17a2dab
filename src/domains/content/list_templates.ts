import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { templateInfoSchema } from "./views.ts";

/** GET /api/templates: the push templates with the JSON Schemas of their variables. */
export const listTemplates = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/templates",
      tags: ["templates"],
      summary: "List the push templates",
      errorResponses: { 401: "Unauthorized" },
    },
  })
  .input(z.void())
  .output(z.array(templateInfoSchema))
  .query(({ ctx }) => ctx.services.templates.list());
