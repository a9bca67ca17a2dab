/** The displays domain's background work: posts to a provider's webhook. */
import { z } from "zod";
import { defineQueue } from "../../infra/jobs/types.ts";

/**
 * One post of a `trmnl_webhook` display's current push to its webhook (CONTRACT.md "Displays
 * behind another provider"). `stately`, keyed by device: at most one post queued and one running
 * per display, so pushes coming faster than the provider's limit leave one post that sends the
 * newest. 30 s doubling to an hour, 12 retries (about half a day).
 */
export const providerPostQueue = defineQueue({
  name: "display-provider-post",
  schema: z.object({ deviceId: z.uuid() }),
  policy: "stately",
  retry: { limit: 12, delaySeconds: 30, maxDelaySeconds: 3600 },
  expireInSeconds: 60,
});
