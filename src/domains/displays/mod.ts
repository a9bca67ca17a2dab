/**
 * The displays domain's face (CONTRACT.md "Displays people already own", SPEC 9.6): displays
 * that poll with TRMNL's protocol (`/api/setup`, `/api/display`) and are claimed by a code. A
 * claimed display is a device of the devices domain; its pushes are the pushes domain's.
 */
import { buildWith, defineDomain } from "../../face.ts";
import { displayImage } from "./image.ts";
import { displayPoll } from "./poll.ts";
import { displayLog } from "./post_log.ts";
import { displaysRouter } from "./router.ts";
import { DisplaysService } from "./service.ts";
import { forgetDisplayLogs } from "./unlink.ts";
import type {
  DisplayButtonHook,
  DisplayFirmwareHook,
  DisplayRefreshCapHook,
} from "./poll_extras.ts";
import { displaySetup } from "./setup.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { DisplayTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    /** Displays polling with TRMNL's protocol: setup, polls, claims. */
    displays: DisplaysService;
  }
}

declare module "../../face.ts" {
  interface Hooks {
    /** A claimed display's poll: a firmware update to offer it, or null (the firmware domain). */
    displayFirmware: DisplayFirmwareHook;
    /** A claimed display's poll: its button's function, a press carried out (the buttons domain). */
    displayButton: DisplayButtonHook;
    /** A claimed display's poll: the most seconds until its next one, or null (playlists). */
    displayRefreshCap: DisplayRefreshCapHook;
  }
}

export const displays = defineDomain({
  name: "displays",
  tags: {
    displays:
      "Displays people already own, polling with TRMNL's protocol: setup, the image to show, logs",
  },
  router: displaysRouter,
  rawRoutes: [displaySetup, displayPoll, displayLog, displayImage],
  hooks: {
    // A display that leaves its owner takes its log entries with it.
    deviceUnlinked: () => forgetDisplayLogs(),
    // A display's custom images are drawn for its panel (CONTRACT.md).
    devicePanel: ({ services }) => (deviceId) => services.displays.profiles.panelOf(deviceId),
  },
  /**
   * A claimed display is a device (devices) showing its pushes (pushes); its poll carries what
   * other domains answer to its hooks (the button's function, a firmware offer).
   */
  build: buildWith(
    ["devices", "pushes"],
    (context) => ({
      displays: new DisplaysService({
        db: context.db,
        devices: context.services.devices,
        pushes: context.services.pushes,
        store: context.storage,
        renderer: context.renderer,
        setupsPerMinute: context.config.displaySetupsPerMinute,
        displaysPerUser: context.config.displaysPerUser,
        baseUrl: context.publicBaseUrl,
        imageSecret: context.secrets.storageSecret,
        changes: context.changes,
        log: context.log,
        extras: {
          firmware: context.hooks("displayFirmware"),
          button: context.hooks("displayButton"),
          refreshCap: context.hooks("displayRefreshCap"),
        },
      }),
    }),
  ),
});
