/**
 * The displays domain's face (CONTRACT.md "Displays people already own", SPEC 9.6): displays
 * that poll with TRMNL's protocol (`/api/setup`, `/api/display`) and are claimed by a code. A
 * claimed display is a device of the devices domain; its pushes are the pushes domain's.
 */
import { buildWith, defineDomain, queueOf } from "../../face.ts";
import { judgeAddress } from "../../infra/outbound/address_guard.ts";
import { LinkFetcher } from "../../infra/outbound/fetch_link.ts";
import { PROVIDER_TIMEOUT_MS } from "./external.ts";
import { displayFeed } from "./feed.ts";
import { providerPostQueue } from "./queues.ts";
import { httpTransport } from "./transport_http.ts";
import { imageFeedTransport } from "./transport_image_feed.ts";
import { trmnlWebhookTransport } from "./transport_trmnl_webhook.ts";
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
  rawRoutes: [displaySetup, displayPoll, displayLog, displayImage, displayFeed],
  queues: [
    queueOf(
      providerPostQueue,
      (services) => (job, attempt) => services.displays.external.deliver(job, attempt),
      // A post waits on the network (10 s at most): an unreachable provider holds one slot.
      { concurrency: 4 },
    ),
  ],
  hooks: {
    // A display that leaves its owner takes its log entries with it.
    deviceUnlinked: () => forgetDisplayLogs(),
    // A display's custom images are drawn for its panel (CONTRACT.md).
    devicePanel: ({ services }) => (deviceId) => services.displays.profiles.panelOf(deviceId),
    devicePanels: ({ services }) => (deviceIds) => services.displays.profiles.panelsOf(deviceIds),
    // How a display is reached: polling (`http`) or behind another provider.
    deviceTransports: ({ services }) => [
      httpTransport,
      imageFeedTransport,
      trmnlWebhookTransport(services.displays.external),
    ],
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
        keylessNetworks: context.config.displayKeylessNetworks,
        baseUrl: context.publicBaseUrl,
        imageSecret: context.secrets.storageSecret,
        changes: context.changes,
        log: context.log,
        extras: {
          firmware: context.hooks("displayFirmware"),
          button: context.hooks("displayButton"),
          refreshCap: context.hooks("displayRefreshCap"),
        },
        jobs: context.jobs,
        // A provider's webhook is posted to under the webhooks' outbound rules: private and
        // loopback targets only with WEBHOOK_ALLOW_PRIVATE (local use and tests).
        poster: new LinkFetcher({
          timeoutMs: PROVIDER_TIMEOUT_MS,
          userAgent: "DeviceDisplayService/0.1 (display provider)",
          ...(context.config.webhookAllowPrivate
            ? {
              allowAddress: (address: string) =>
                [null, "private", "loopback"].includes(judgeAddress(address)),
            }
            : {}),
        }),
        providerKey: context.secrets.providerKey,
        providerPostsPerHour: context.config.providerPostsPerHour,
      }),
    }),
  ),
});
