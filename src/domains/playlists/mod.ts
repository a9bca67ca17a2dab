/**
 * The playlists' face (issue 37, CONTRACT.md "Screens that keep themselves current"): rotations
 * of plugins and mashups run on the user's devices, each item due becoming a push of the device
 * drawn by the plugins domain for its panel; the scheduler is pg-boss (once across processes,
 * kept across restarts).
 */
import { buildWith, defineDomain, queueOf } from "../../face.ts";
import { playlistAdvanceQueue, playlistSweepQueue } from "./queues.ts";
import { playlistsRouter } from "./router.ts";
import { PlaylistsService } from "./service.ts";
import { deleteRotation } from "./repository.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { PlaylistTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    /** Playlists: CRUD, devices' rotations, their scheduler. */
    playlists: PlaylistsService;
  }
}

export const playlists = defineDomain({
  name: "playlists",
  tags: {
    playlists: "Rotations of plugins and mashups that keep devices' screens current",
  },
  router: playlistsRouter,
  queues: [
    queueOf(playlistAdvanceQueue, (services) => (job) => services.playlists.handle(job), {
      concurrency: 4,
    }),
    queueOf(playlistSweepQueue, (services) => async () => {
      await services.playlists.sweep();
    }, { schedule: () => ({ cron: "* * * * *", data: {} }) }),
  ],
  hooks: {
    // A device that leaves its owner stops its playlist.
    deviceUnlinked: () => ({
      inTransaction: (trx, device) => deleteRotation(trx, device.id),
      afterCommit: () => Promise.resolve(),
    }),
    // The owner's own push holds the rotation for the current item's duration.
    ownerPushed: ({ services }) => (trx, deviceId) => services.playlists.ownerPushed(trx, deviceId),
    // A playlist's push is shown as soon as it is rendered.
    pushRendered: ({ services }) => (pushes) => services.playlists.rendered(pushes),
    // A webhook post redraws the devices showing the plugin; a deleted plugin's items drop out.
    pluginChanged: ({ services }) => ({
      dataChanged: (trx, pluginId) => services.playlists.pluginDataChanged(trx, pluginId),
      deleted: (trx, userId, pluginId) => services.playlists.pluginDeleted(trx, userId, pluginId),
    }),
    // A display polls again by the end of its current item.
    displayRefreshCap: ({ services }) => (deviceId) => services.playlists.secondsLeft(deviceId),
  },
  build: buildWith(["devices", "pushes", "plugins", "displays"], (context) => ({
    playlists: new PlaylistsService({
      db: context.db,
      jobs: context.jobs,
      devices: context.services.devices,
      pushes: context.services.pushes,
      plugins: context.services.plugins,
      secondsAsleep: (deviceId) => context.services.displays.profiles.secondsAsleep(deviceId),
      secondsAsleepOf: (deviceIds, db) =>
        context.services.displays.profiles.secondsAsleepOf(deviceIds, db),
      changes: context.changes,
      log: context.log,
    }),
  })),
});
