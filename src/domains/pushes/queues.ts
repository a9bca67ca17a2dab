/** The pushes domain's background work (SPEC 4.6 render stage). */
import { z } from "zod";
import { defineQueue } from "../../infra/jobs/types.ts";

/** Render one push: its template, parameters and source are on the push row. */
export const renderPushQueue = defineQueue({
  name: "render",
  schema: z.object({ pushId: z.uuid() }),
});
