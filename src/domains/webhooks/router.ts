/** Webhook procedures (CONTRACT.md "Integrations"): user token or PAT. */
import { router } from "../../infra/trpc/init.ts";
import { createWebhook } from "./create_webhook.ts";
import { deleteWebhook } from "./delete_webhook.ts";
import { enableWebhook } from "./enable_webhook.ts";
import { getSettings } from "./get_settings.ts";
import { listDeliveries } from "./list_deliveries.ts";
import { listWebhooks } from "./list_webhooks.ts";
import { setSettings } from "./set_settings.ts";

// Settings before the `{id}` routes: `settings` is not a webhook id.
export const webhooksRouter = router({
  getSettings,
  setSettings,
  createWebhook,
  listWebhooks,
  deleteWebhook,
  enableWebhook,
  listDeliveries,
});
