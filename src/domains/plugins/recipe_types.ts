/**
 * The plugin a recipe imports as: the body of `POST /api/plugins` (CONTRACT, plugins), so the
 * import route can hand it to the same creation as a JSON request.
 */

import type { PluginMarkup, PluginPolling } from "./tables.ts";

export type { PluginMarkup, PluginPolling };

/** The body of `POST /api/plugins`. */
export interface PluginInput {
  name: string;
  strategy: "static" | "webhook" | "polling";
  markup: PluginMarkup;
  staticData?: Record<string, unknown>;
  polling?: PluginPolling;
  refreshMinutes?: number;
  /** Values of the recipe's custom fields by `keyname` (their defaults on import). */
  customFields?: Record<string, unknown>;
}

/**
 * One entry of `settings.yml`'s `custom_fields` as TRMNL writes it (`keyname`, `name`,
 * `field_type`, `options`, `default`, `help_text`, …), kept whole so an export gives it back.
 */
export type CustomFieldDefinition = { keyname: string } & Record<string, unknown>;

/** What `parseRecipe` answers. */
export interface ParsedRecipe {
  input: PluginInput;
  /** Each names what will not work as on TRMNL. */
  warnings: string[];
  customFieldDefinitions: CustomFieldDefinition[];
}
