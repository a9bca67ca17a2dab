/** The pushes domain's background work (SPEC 4.6 render stage). */
import { z } from "zod";
import { defineQueue } from "../../infra/jobs/types.ts";

/**
 * Render one push: its template, parameters and source are on the push row. `along`: pushes
 * made with it that draw the same (a playlist's item due on many devices), rendered by this job
 * after it, most of them stored with its drawing already.
 */
export const renderPushQueue = defineQueue({
  name: "render",
  schema: z.object({ pushId: z.uuid(), along: z.array(z.uuid()).max(200).optional() }),
});
