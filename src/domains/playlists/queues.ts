/**
 * The playlists' background work (pg-boss: once across processes, kept across restarts): a
 * device's advance when its item ends (sent delayed when the item starts; one job for devices
 * advanced together, whose items end together), a playlist's devices
 * restarted after an edit, a plugin's current screens drawn again when its data changed; and the
 * minute's sweep that advances devices whose job was lost.
 */
import { z } from "zod";
import { defineQueue } from "../../infra/jobs/types.ts";

export const playlistAdvanceQueue = defineQueue({
  name: "playlist-advance",
  schema: z.union([
    // `along`: devices whose items end with it (advanced together), one job for all of them.
    z.object({ deviceId: z.uuid(), along: z.array(z.uuid()).max(200).optional() }).strict(),
    z.object({ playlistId: z.uuid() }).strict(),
    z.object({ pluginId: z.uuid() }).strict(),
  ]),
  retry: { limit: 3, delaySeconds: 5, maxDelaySeconds: 60 },
  expireInSeconds: 300,
});

export type AdvanceJob = z.infer<typeof playlistAdvanceQueue.schema>;

/** Each minute: devices whose item ended without their advance job (lost, or a restart). */
export const playlistSweepQueue = defineQueue({
  name: "playlist-sweep",
  schema: z.object({}),
  policy: "singleton",
  retry: { limit: 1, delaySeconds: 10, maxDelaySeconds: 10 },
  expireInSeconds: 120,
});
