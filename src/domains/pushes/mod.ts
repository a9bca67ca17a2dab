/** The pushes domain's face (SPEC 4.2-4.6): pushes, uploads, and the render stage's queue. */
import { buildWith, defineDomain, queueOf } from "../../face.ts";
import type { PanelSpec } from "../../infra/render/types.ts";
import { userPrefixes } from "./keys.ts";
import { renderPushQueue } from "./queues.ts";
import {
  type PushDrawing,
  PushRenderJob,
  type RenderedReaction,
  type RenderFailedReaction,
} from "./render_job.ts";
import { pushesRouter } from "./router.ts";
import { type OwnerPushReaction, PushesService } from "./service.ts";
import { forgetDevicePushes } from "./unlink.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { PushTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    pushes: PushesService;
    /** The handler of `renderPushQueue`. */
    pushRenderJob: PushRenderJob;
  }
}

declare module "../../face.ts" {
  interface Hooks {
    /** A push's render failed for good (no retry follows). */
    pushFailedForGood: RenderFailedReaction;
    /** The panel a device is (size and grey depth), or null: its custom images are drawn for it. */
    devicePanel: (deviceId: string) => Promise<PanelSpec | null>;
    /** `devicePanel` of many devices at once: the panels of those that are one, by device. */
    devicePanels: (deviceIds: string[]) => Promise<Map<string, PanelSpec>>;
    /** A push template another domain draws (a plugin's): its drawing. */
    pushDrawing: PushDrawing;
    /** A push's render was stored (PREPARE → QUEUE). */
    pushRendered: RenderedReaction;
    /** The owner's own push of a device (not a scheduled one), in its transaction. */
    ownerPushed: OwnerPushReaction;
  }
}

export const pushes = defineDomain({
  name: "pushes",
  tags: {
    pushes: "What a device shows: pushes, their bitmaps and custom images (SPEC 4.5)",
  },
  router: pushesRouter,
  objectKeys: { userPrefixes },
  queues: [
    queueOf(
      renderPushQueue,
      (services) => (job, attempt) => services.pushRenderJob.handle(job, attempt),
      { concurrency: "pool" },
    ),
  ],
  hooks: {
    // SPEC 3.6 / 4.1: a device that leaves its owner takes its pushes, files and bitmaps.
    deviceUnlinked: ({ storage }) => forgetDevicePushes(storage),
  },
  /** push.published, push.confirmed and push.failed are webhook events, emitted where it changes. */
  build: buildWith(["devices", "webhooks"], (context) => {
    const { db, storage, jobs, log, changes, renderer, services } = context;
    const pushes = new PushesService({
      db,
      devices: services.devices,
      store: storage,
      jobs,
      log,
      changes,
      events: services.webhooks,
      onOwnerPush: context.hooks("ownerPushed"),
      prewarm: () => void renderer.prewarm?.(),
    });
    const panels = context.hooks("devicePanel");
    const panelSets = context.hooks("devicePanels");
    return {
      pushes,
      pushRenderJob: new PushRenderJob(pushes, renderer, {
        store: storage,
        onFailedForGood: context.hooks("pushFailedForGood"),
        drawings: context.hooks("pushDrawing"),
        onRendered: context.hooks("pushRendered"),
        panelOf: async (deviceId) => {
          for (const panelOf of panels) {
            const panel = await panelOf(deviceId);
            if (panel) return panel;
          }
          return null;
        },
        panelsOf: async (deviceIds) => {
          const found = new Map<string, PanelSpec>();
          for (const panelsOf of panelSets) {
            for (const [id, panel] of await panelsOf(deviceIds)) {
              if (!found.has(id)) found.set(id, panel);
            }
          }
          return found;
        },
        log,
      }),
    };
  }),
});
