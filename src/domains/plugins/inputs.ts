/**
 * What a plugin is made of, as the API takes it (CONTRACT.md "Screens that keep themselves
 * current"): the shape `POST /api/plugins` checks, that `PUT` checks field by field, and that a
 * recipe's settings are turned into (recipe.ts) before they are checked the same way.
 */
import { z } from "zod";

/** One view's markup: generous for a recipe, bounded for the renderer. */
export const MAX_VIEW_CHARS = 64 * 1024;
/** A plugin's static data, custom fields or polling body, as JSON text. */
export const MAX_DATA_BYTES = 64 * 1024;
/** Plugins one user may hold. */
export const MAX_PLUGINS = 100;

export const PLUGIN_STRATEGIES = ["static", "webhook", "polling"] as const;
export const PLUGIN_VIEWS = ["full", "half_horizontal", "half_vertical", "quadrant"] as const;
export type PluginView = typeof PLUGIN_VIEWS[number];

const view = z.string().max(MAX_VIEW_CHARS, `must be at most ${MAX_VIEW_CHARS} characters`);

/** A JSON object of at most `MAX_DATA_BYTES` once written. */
function boundedObject(what: string) {
  return z.record(z.string(), z.unknown()).refine(
    (value) => new TextEncoder().encode(JSON.stringify(value)).length <= MAX_DATA_BYTES,
    `${what} must be at most ${MAX_DATA_BYTES} bytes as JSON`,
  );
}

export const markupSchema = z.object({
  full: view.min(1, "must not be empty"),
  halfHorizontal: view.optional(),
  halfVertical: view.optional(),
  quadrant: view.optional(),
  shared: view.optional(),
}).strict().meta({
  id: "PluginMarkup",
  description: "Liquid producing HTML, per view; `shared` is laid before each view's markup",
});

/** A header's name and value as sent on the wire: no line breaks can smuggle another header. */
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "is not a header name");
const headerValue = z.string().max(2000).regex(/^[^\r\n\0]*$/, "must be one line");

export const pollingSchema = z.object({
  urls: z.array(z.string().trim().min(1).max(2000, "must be at most 2000 characters"))
    .min(1, "must name at least one URL").max(5, "must name at most 5 URLs"),
  verb: z.enum(["GET", "POST"]).optional().meta({ description: "Default GET" }),
  headers: z.record(headerName, headerValue).refine(
    (headers) => Object.keys(headers).length <= 20,
    "must be at most 20 headers",
  ).optional(),
  body: z.string().max(MAX_DATA_BYTES).optional(),
}).strict().meta({
  id: "PluginPolling",
  description: "URLs fetched when a render needs data older than `refreshMinutes`; Liquid in " +
    "the URLs, headers and body sees `customFields`",
});

/** The fields of a plugin a user sets (all of them on POST, any of them on PUT). */
export const pluginFields = {
  name: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
  strategy: z.enum(PLUGIN_STRATEGIES),
  markup: markupSchema,
  staticData: boundedObject("staticData").meta({
    description: "The merge variables of a `static` plugin",
  }),
  polling: pollingSchema,
  refreshMinutes: z.number().int().min(5, "must be at least 5").max(
    1440,
    "must be at most 1440",
  ).meta({ description: "How old polled data may be before a render fetches again (default 15)" }),
  customFields: boundedObject("customFields").meta({
    description: "Values the markup sees as `trmnl.plugin_settings.custom_fields_values`",
  }),
};

export const createPluginSchema = z.object({
  name: pluginFields.name,
  strategy: pluginFields.strategy,
  markup: pluginFields.markup,
  staticData: pluginFields.staticData.optional(),
  polling: pluginFields.polling.optional(),
  refreshMinutes: pluginFields.refreshMinutes.optional(),
  customFields: pluginFields.customFields.optional(),
}).strict();

export type CreatePluginInput = z.infer<typeof createPluginSchema>;

export const updatePluginSchema = createPluginSchema.partial().extend({
  polling: pluginFields.polling.nullable().optional(),
}).strict();

export type UpdatePluginInput = z.infer<typeof updatePluginSchema>;
