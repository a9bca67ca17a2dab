/** Plugin procedures (CONTRACT.md "Screens that keep themselves current"): user token or PAT. */
import { router } from "../../infra/trpc/init.ts";
import { createPlugin } from "./create_plugin.ts";
import { deletePlugin } from "./delete_plugin.ts";
import { getPlugin } from "./get_plugin.ts";
import { getPluginData } from "./get_plugin_data.ts";
import { listPlugins } from "./list_plugins.ts";
import { pushPlugin } from "./push_plugin.ts";
import { updatePlugin } from "./update_plugin.ts";

export const pluginsRouter = router({
  createPlugin,
  listPlugins,
  getPlugin,
  updatePlugin,
  deletePlugin,
  getPluginData,
  pushPlugin,
});
