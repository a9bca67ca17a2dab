/** The targetless domain's background work (SPEC 4.7): Scene generation and renditions. */
import { z } from "zod";
import { defineQueue } from "../../infra/jobs/types.ts";

/**
 * Make the Scene of a confirmed content (auto: links, model; hardcode: the image). A failed try
 * is retried a few times (a link or the model may be back), then the content fails.
 */
export const generateSceneQueue = defineQueue({
  name: "targetless-generate",
  schema: z.object({ contentId: z.uuid() }),
  retry: { limit: 2, delaySeconds: 5, maxDelaySeconds: 60 },
});

/** Render one PNG rendition of a presentation's Scene. */
export const renderRenditionQueue = defineQueue({
  name: "targetless-rendition",
  schema: z.object({ renditionId: z.uuid() }),
  retry: { limit: 3, delaySeconds: 5, maxDelaySeconds: 60 },
});
