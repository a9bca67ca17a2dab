/**
 * The plugins' face (issue 36, CONTRACT.md "Screens that keep themselves current"): screens drawn
 * from Liquid markup and data, TRMNL's webhook inbox, recipes, previews, and the drawing of a
 * plugin's pushes (the pushes domain's `pushDrawing` hook).
 */
import { buildWith, defineDomain } from "../../face.ts";
import { AppError } from "../../errors.ts";
import { LinkFetcher, outboundAddresses } from "../../infra/outbound/fetch_link.ts";
import type { LiquidResult } from "../../infra/render/types.ts";
import { PluginDrawing } from "./drawing.ts";
import { postInbox, readInbox } from "./inbox.ts";
import { previewPlugin } from "./preview_plugin.ts";
import { exportPlugin, importPlugin } from "./recipes.ts";
import { pluginsRouter } from "./router.ts";
import { PLUGIN_PUSH_TEMPLATE, type PluginReaction, PluginsService } from "./service.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { PluginTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    /** Plugins: CRUD, the webhook inbox, polling, previews, recipes and plugin pushes. */
    plugins: PluginsService;
  }
}

declare module "../../face.ts" {
  interface Hooks {
    /** A plugin's data changed (a webhook post) or it was deleted, in its transaction. */
    pluginChanged: PluginReaction;
  }
}

/** A polling URL's own deadline: the outbound fetcher's, as for webhooks. */
const POLL_TIMEOUT_MS = 5000;
/** Liquid's budget per render (the markup; the page has the render's 20 s). */
const LIQUID_DEADLINE_MS = 2000;

export const plugins = defineDomain({
  name: "plugins",
  tags: {
    plugins: "Screens drawn from Liquid markup and live data: TRMNL's webhook, polling, recipes",
  },
  router: pluginsRouter,
  rawRoutes: [postInbox, readInbox, previewPlugin, importPlugin, exportPlugin],
  hooks: {
    // A plugin's push is drawn for the device's panel by the push render job.
    pushDrawing: ({ services }) => ({
      template: PLUGIN_PUSH_TEMPLATE,
      draw: (push, panel) => services.plugins.drawPush(push, panel),
      // Nothing of the device but its panel reaches the page: one drawing serves every push of
      // the same screen (a playlist's item on many displays).
      alike: true,
    }),
  },
  build: buildWith(["devices", "pushes", "webhooks"], (context) => {
    const { db, config, renderer, screens, log, services, publicBaseUrl } = context;
    const liquid = {
      // Off the request loop: liquidjs renders synchronously (workers/render.ts).
      async render(markup: string, variables: Record<string, unknown>) {
        const result = await renderer.runText({
          op: "liquid",
          markup,
          context: variables,
          deadlineMs: LIQUID_DEADLINE_MS,
        }) as LiquidResult;
        if (!result.ok) {
          throw new AppError("invalid_request", `The markup does not render: ${result.message}`);
        }
        return result.html;
      },
    };
    return {
      plugins: new PluginsService({
        db,
        baseUrl: publicBaseUrl,
        webhooksPerHour: config.pluginWebhooksPerHour,
        // The webhooks' outbound rules: private and loopback only with WEBHOOK_ALLOW_PRIVATE.
        fetcher: new LinkFetcher({
          timeoutMs: POLL_TIMEOUT_MS,
          ...outboundAddresses(config.webhookAllowPrivate),
        }),
        drawing: new PluginDrawing(liquid, screens),
        devices: services.devices,
        pushes: services.pushes,
        events: services.webhooks,
        log,
        onChange: context.hooks("pluginChanged"),
      }),
    };
  }),
});
