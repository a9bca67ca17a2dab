/**
 * Recipes: a plugin as a zip, TRMNL's export (`settings.yml` and the `.liquid` views at the root)
 * or a trmnlp project (the same under `src/`), also when one top folder wraps it (a zip made by
 * Finder or `zip -r dir`). `parseRecipe` gives the body of `POST /api/plugins` and warnings
 * naming what will not work as on TRMNL; `exportRecipe` writes the trmnlp layout back.
 */
import { zipSync } from "fflate";
import { stringify } from "yaml";
import { compatibility } from "../../infra/liquid/trmnl.ts";
import { RecipeError } from "./recipe_error.ts";
import { encodeHeaders, parseSettings, settingsToInput } from "./recipe_settings.ts";
import type {
  CustomFieldDefinition,
  ParsedRecipe,
  PluginInput,
  PluginMarkup,
} from "./recipe_types.ts";
import { readZip, type ZipLimits } from "./recipe_zip.ts";

export { RecipeError } from "./recipe_error.ts";
export type {
  CustomFieldDefinition,
  ParsedRecipe,
  PluginInput,
  PluginMarkup,
  PluginPolling,
} from "./recipe_types.ts";

/** A script, stylesheet, font or picture the markup loads from a network address. */
const NETWORK_RESOURCE =
  /<(script|link|img|iframe|source)\b[^>]*?\b(?:src|href)\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)|@import\s+(?:url\()?["']?((?:https?:)?\/\/[^"')\s;]+)|url\(\s*["']?((?:https?:)?\/\/[^"')\s]+)/gi;

/**
 * One warning per resource the markup loads from the network, which a screen's page never
 * reaches (CONTRACT.md): TRMNL's CDN scripts and stylesheets, remote pictures. A recipe that
 * needs a picture gets it as data (a merge variable holding a data: URL) instead.
 */
export function offline(markup: string): string[] {
  const urls = new Set<string>();
  for (const match of markup.matchAll(NETWORK_RESOURCE)) {
    const url = match[2] ?? match[3] ?? match[4];
    if (url && !url.includes("{{")) urls.add(url);
  }
  return [...urls].map((url) =>
    `${url} is loaded from the network, which screens never reach: the page draws without it`
  );
}

/** CONTRACT: at most 1 MiB packed, 10 MiB unpacked; 64 entries is many times a recipe's 6. */
export const RECIPE_LIMITS: ZipLimits = {
  packedBytes: 1024 * 1024,
  unpackedBytes: 10 * 1024 * 1024,
  entries: 64,
};

/** The view files and the markup field each fills. */
const VIEWS: [string, keyof PluginMarkup][] = [
  ["full.liquid", "full"],
  ["half_horizontal.liquid", "halfHorizontal"],
  ["half_vertical.liquid", "halfVertical"],
  ["quadrant.liquid", "quadrant"],
  ["shared.liquid", "shared"],
];
const RECIPE_FILES = new Set(["settings.yml", ...VIEWS.map(([file]) => file)]);
const TRANSFORM = /^transform\.\w+$/;

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const folderOf = (path: string) => path.slice(0, path.lastIndexOf("/") + 1);

/** Whether a folder is one a recipe may sit in: root, `src/`, `<top>/`, `<top>/src/`. */
function isRecipeFolder(folder: string): boolean {
  return /^([^/]+\/)?(src\/)?$/.test(folder) && !folder.startsWith("__MACOSX/");
}

/** The folder holding the recipe: the allowed folder with most recipe files, `src/` first. */
function recipeFolder(names: string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) {
    const folder = folderOf(name);
    if (RECIPE_FILES.has(baseName(name)) && isRecipeFolder(folder)) {
      counts.set(folder, (counts.get(folder) ?? 0) + 1);
    }
  }
  const ranked = [...counts].sort((a, b) =>
    b[1] - a[1] || Number(b[0].endsWith("src/")) - Number(a[0].endsWith("src/"))
  );
  if (ranked.length === 0) {
    throw new RecipeError("The zip holds no recipe: no settings.yml or .liquid views");
  }
  return ranked[0][0];
}

const decoder = new TextDecoder();
const textOf = (bytes: Uint8Array) => decoder.decode(bytes).replace(/^\uFEFF/, "");

/** Reads a recipe zip; throws `RecipeError` for a zip that is not one or breaks a limit. */
export function parseRecipe(bytes: Uint8Array): ParsedRecipe {
  const wanted = (name: string) =>
    RECIPE_FILES.has(baseName(name)) && isRecipeFolder(folderOf(name));
  const { names, files } = readZip(bytes, RECIPE_LIMITS, wanted);
  const folder = recipeFolder(names);
  const read = (file: string) => {
    const content = files.get(folder + file);
    return content === undefined ? undefined : textOf(content);
  };
  const warnings: string[] = [];
  const settingsText = read("settings.yml");
  if (settingsText === undefined) {
    warnings.push("The recipe has no settings.yml: defaults are used");
  }
  const { input, fields } = settingsToInput(parseSettings(settingsText ?? ""), warnings);
  const markup: Partial<PluginMarkup> = {};
  for (const [file, key] of VIEWS) {
    const content = read(file);
    if (content !== undefined && content.trim() !== "") markup[key] = content;
  }
  if (markup.full === undefined) throw new RecipeError("The recipe has no markup in full.liquid");
  if (names.some((name) => folderOf(name) === folder && TRANSFORM.test(baseName(name)))) {
    warnings.push("The serverless transform does not run: the markup gets the data untransformed");
  }
  const seen = new Set<string>();
  for (const view of Object.values(markup)) {
    for (const warning of [...compatibility(view!), ...offline(view!)]) seen.add(warning);
  }
  return {
    input: { ...input, markup: markup as PluginMarkup },
    warnings: [...new Set(warnings), ...seen],
    customFieldDefinitions: fields,
  };
}

/** `settings.yml` for `plugin`, custom fields' defaults set to the plugin's values. */
function settingsOf(plugin: PluginInput, definitions: CustomFieldDefinition[]): string {
  const values = plugin.customFields ?? {};
  const fields = definitions.map((field) =>
    field.keyname in values ? { ...field, default: values[field.keyname] } : field
  );
  for (const [keyname, value] of Object.entries(values)) {
    if (!definitions.some((field) => field.keyname === keyname)) {
      fields.push({ keyname, name: keyname, field_type: "string", default: value });
    }
  }
  const settings: Record<string, unknown> = { name: plugin.name, strategy: plugin.strategy };
  if (plugin.refreshMinutes !== undefined) settings.refresh_interval = plugin.refreshMinutes;
  if (plugin.staticData !== undefined) settings.static_data = JSON.stringify(plugin.staticData);
  if (plugin.polling) {
    settings.polling_url = plugin.polling.urls.join("\n");
    if (plugin.polling.verb) settings.polling_verb = plugin.polling.verb.toLowerCase();
    if (plugin.polling.headers) settings.polling_headers = encodeHeaders(plugin.polling.headers);
    if (plugin.polling.body !== undefined) settings.polling_body = plugin.polling.body;
  }
  settings.dark_mode = "no";
  settings.no_screen_padding = "no";
  if (fields.length > 0) settings.custom_fields = fields;
  return stringify(settings, { lineWidth: 0 });
}

/** A fixed time for every entry: the same plugin always exports the same bytes. */
const MTIME = new Date("2000-01-01T00:00:00Z");

/**
 * The plugin as a trmnlp project zip (`src/settings.yml` and the `.liquid` views), which
 * `parseRecipe` reads back to the same input. `definitions` are the custom field definitions
 * the plugin was imported with; values without one are written as text fields.
 */
export function exportRecipe(
  plugin: PluginInput,
  definitions: CustomFieldDefinition[] = [],
): Uint8Array {
  const encoder = new TextEncoder();
  const files: Record<string, [Uint8Array, { mtime: Date }]> = {
    "src/settings.yml": [encoder.encode(settingsOf(plugin, definitions)), { mtime: MTIME }],
  };
  for (const [file, key] of VIEWS) {
    const markup = plugin.markup[key];
    if (markup !== undefined) files[`src/${file}`] = [encoder.encode(markup), { mtime: MTIME }];
  }
  return zipSync(files, { level: 9 });
}
