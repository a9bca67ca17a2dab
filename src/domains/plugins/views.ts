/** Row-to-API mapping of plugins (CONTRACT.md "Screens that keep themselves current"). */
import { z } from "zod";
import type { Selectable } from "kysely";
import { timestamp } from "../../infra/lib/wire.ts";
import { markupSchema, PLUGIN_STRATEGIES, pollingSchema } from "./inputs.ts";
import type { PluginsTable } from "./tables.ts";

const object = z.record(z.string(), z.unknown());

export const pluginSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  strategy: z.enum(PLUGIN_STRATEGIES),
  markup: markupSchema,
  staticData: object,
  polling: pollingSchema.nullable(),
  refreshMinutes: z.number().int(),
  customFields: object,
  webhookUrl: z.string().optional().meta({
    description: 'A webhook plugin\'s inbox: POST `{"merge_variables": {…}}` there, no token',
  }),
  dataUpdatedAt: timestamp.nullable().meta({
    description: "When the data last changed (a webhook post or a good poll)",
  }),
  dataError: z.string().nullable().meta({
    description: "Why the last poll failed (the last good data is kept), null after a good one",
  }),
  createdAt: timestamp,
  updatedAt: timestamp,
}).meta({ id: "Plugin" });

export type Plugin = z.infer<typeof pluginSchema>;

export const pluginDataSchema = z.object({
  mergeVariables: object.meta({ description: "What the markup sees at the top level" }),
  updatedAt: timestamp.nullable(),
  error: z.string().nullable(),
}).meta({ id: "PluginData" });

/** A webhook plugin's inbox URL under the service's public address. */
export function inboxUrl(baseUrl: string, uuid: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/api/custom_plugins/${uuid}`;
}

export function toPlugin(row: Selectable<PluginsTable>, baseUrl: string): Plugin {
  return {
    id: row.id,
    name: row.name,
    strategy: row.strategy,
    markup: row.markup,
    staticData: row.static_data,
    polling: row.polling,
    refreshMinutes: row.refresh_minutes,
    customFields: row.custom_fields,
    ...(row.strategy === "webhook" && row.webhook_uuid
      ? { webhookUrl: inboxUrl(baseUrl, row.webhook_uuid) }
      : {}),
    dataUpdatedAt: row.data_updated_at?.toISOString() ?? null,
    dataError: row.data_error,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
