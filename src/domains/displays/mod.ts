/**
 * The displays domain's face (CONTRACT.md "Displays people already own", SPEC 9.6): displays
 * that poll with TRMNL's protocol (`/api/setup`, `/api/display`) and are claimed by a code. A
 * claimed display is a device of the devices domain; its pushes are the pushes domain's.
 */
import { buildWith, defineDomain } from "../../face.ts";
import { modelOf } from "../firmware/service.ts";
import { displayImage } from "./image.ts";
import { displayPoll } from "./poll.ts";
import { displayLog } from "./post_log.ts";
import { displaysRouter } from "./router.ts";
import { DisplaysService } from "./service.ts";
import { forgetDisplayLogs } from "./unlink.ts";
import { displaySetup } from "./setup.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { DisplayTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    /** Displays polling with TRMNL's protocol: setup, polls, claims. */
    displays: DisplaysService;
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
    devicePanel: ({ services }) => (deviceId) => services.displays.panelOf(deviceId),
  },
  /**
   * A claimed display is a device (devices) showing its pushes (pushes); its poll carries its
   * button's function (buttons) and a firmware offer (firmware).
   */
  build: buildWith(
    ["devices", "pushes", "buttons", "firmwareUpdates"],
    ({ db, storage, renderer, config, secrets, changes, log, publicBaseUrl, services }) => ({
      displays: new DisplaysService({
        db,
        devices: services.devices,
        pushes: services.pushes,
        store: storage,
        renderer,
        setupsPerMinute: config.displaySetupsPerMinute,
        displaysPerUser: config.displaysPerUser,
        baseUrl: publicBaseUrl,
        imageSecret: secrets.storageSecret,
        changes,
        log,
        extras: {
          button: (device, headers) => services.buttons.onPoll(device, headers),
          // A display is claimed, never provisioned by the factory: no batch, no SKU.
          firmware: (device, reported) =>
            services.firmwareUpdates.forDisplay({
              id: device.id,
              thingName: device.thing_name,
              batchId: null,
              sku: null,
              model: modelOf(reported.model),
              firmware: reported["fw-version"] ?? null,
            }),
        },
      }),
    }),
  ),
});
