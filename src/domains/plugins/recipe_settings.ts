/**
 * `settings.yml` of a TRMNL recipe read into a plugin's fields. TRMNL writes it (hosted export,
 * trmnlp): `polling_url` one URL a line, `polling_headers` as `name=value&name=value` with
 * URI-encoded values, `static_data` as JSON text, `refresh_interval` in minutes. Settings that
 * change how TRMNL shows the plugin but do nothing here become warnings.
 */
import { parse } from "yaml";
import { RecipeError } from "./recipe_error.ts";
import type { CustomFieldDefinition, PluginInput } from "./recipe_types.ts";

/** The refresh range of `POST /api/plugins`, in minutes. */
export const REFRESH_MINUTES = { min: 5, max: 1440 };
/** URLs one polling plugin may fetch (CONTRACT). */
export const MAX_POLLING_URLS = 5;
/** Field definitions kept from one recipe. */
export const MAX_CUSTOM_FIELDS = 50;

type Settings = Record<string, unknown>;

/** Parses `settings.yml`: a mapping, without alias bombs, or a `RecipeError`. */
export function parseSettings(text: string): Settings {
  let value: unknown;
  try {
    value = parse(text, { maxAliasCount: 10, uniqueKeys: false });
  } catch (error) {
    throw new RecipeError(
      `settings.yml does not parse: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new RecipeError("settings.yml is not a mapping of settings");
  }
  return value as Settings;
}

const text = (value: unknown) => value === undefined || value === null ? "" : String(value).trim();

const isOn = (value: unknown) => value === true || /^(yes|true)$/i.test(text(value));

/** `name=value&name=value` (or one a line) to headers, values URI-decoded as TRMNL does. */
export function parseHeaders(value: unknown): Record<string, string> {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, text(v)]));
  }
  const headers: Record<string, string> = {};
  for (const pair of text(value).split(/[&\n]/)) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    headers[decode(pair.slice(0, at).trim())] = decode(pair.slice(at + 1).trim());
  }
  return headers;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Headers back to TRMNL's `name=value&…` text. */
export function encodeHeaders(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join("&");
}

function staticData(value: unknown): Record<string, unknown> | undefined {
  if (value && typeof value === "object") {
    return Array.isArray(value) ? { data: value } : value as Record<string, unknown>;
  }
  if (text(value) === "") return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text(value));
  } catch (error) {
    throw new RecipeError(`static_data is not JSON: ${(error as Error).message}`);
  }
  if (Array.isArray(data)) return { data }; // As a polled array: nested under `data`.
  if (!data || typeof data !== "object") {
    throw new RecipeError("static_data is not a JSON object");
  }
  return data as Record<string, unknown>;
}

function pollingOf(settings: Settings, warnings: string[]): PluginInput["polling"] {
  const raw = settings.polling_url;
  let urls = (Array.isArray(raw) ? raw.map(text) : text(raw).split(/\r?\n/))
    .map((url) => url.trim())
    .filter(Boolean);
  if (urls.length === 0) return undefined;
  if (urls.length > MAX_POLLING_URLS) {
    warnings.push(
      `polling_url lists ${urls.length} URLs: only the first ${MAX_POLLING_URLS} are polled`,
    );
    urls = urls.slice(0, MAX_POLLING_URLS);
  }
  const polling: NonNullable<PluginInput["polling"]> = { urls };
  const verb = text(settings.polling_verb).toUpperCase();
  if (verb === "GET" || verb === "POST") polling.verb = verb;
  else if (verb) warnings.push(`polling_verb "${verb}" is not GET or POST: GET is used`);
  const headers = parseHeaders(settings.polling_headers);
  if (Object.keys(headers).length > 0) polling.headers = headers;
  const body = settings.polling_body === undefined ? "" : String(settings.polling_body);
  if (body.trim() !== "") polling.body = body;
  return polling;
}

function refreshOf(value: unknown, warnings: string[]): number | undefined {
  if (text(value) === "") return undefined;
  const minutes = Math.round(Number(value));
  if (!Number.isFinite(minutes)) {
    warnings.push(
      `refresh_interval "${text(value)}" is not a number of minutes: the default is used`,
    );
    return undefined;
  }
  const clamped = Math.min(Math.max(minutes, REFRESH_MINUTES.min), REFRESH_MINUTES.max);
  if (clamped !== minutes) {
    warnings.push(`refresh_interval ${minutes} is outside 5-1440 minutes: ${clamped} is used`);
  }
  return clamped;
}

function fieldsOf(value: unknown, warnings: string[]): CustomFieldDefinition[] {
  if (value === undefined || value === null || value === "") return [];
  if (!Array.isArray(value)) {
    warnings.push("custom_fields is not a list: the fields are left out");
    return [];
  }
  const fields: CustomFieldDefinition[] = [];
  for (const field of value) {
    const keyname = field && typeof field === "object" ? (field as Settings).keyname : undefined;
    if (typeof keyname !== "string" || !/^[A-Za-z_][\w]*$/.test(keyname)) {
      warnings.push(`A custom field without a usable keyname is left out`);
    } else if (fields.length >= MAX_CUSTOM_FIELDS) {
      warnings.push(`Custom field "${keyname}" is left out: at most ${MAX_CUSTOM_FIELDS} are kept`);
    } else fields.push(field as CustomFieldDefinition);
  }
  return fields;
}

/** Settings that change the plugin on TRMNL but do nothing here. */
function unsupported(settings: Settings, warnings: string[]): void {
  if (isOn(settings.dark_mode)) warnings.push("dark_mode is not applied: drawn light");
  if (isOn(settings.no_screen_padding)) {
    warnings.push("no_screen_padding is not applied: drawn with the screen's padding");
  }
  if (text(settings.framework_version) !== "") {
    warnings.push(
      `framework_version ${
        text(settings.framework_version)
      } is not loaded: drawn with the service's stylesheet`,
    );
  }
  const keys = Object.keys(settings);
  if (keys.some((key) => /^serverless|transform/i.test(key) && text(settings[key]) !== "")) {
    warnings.push("The serverless transform does not run: the markup gets the data untransformed");
  }
  if (keys.some((key) => /oauth/i.test(key) && text(settings[key]) !== "")) {
    warnings.push("OAuth sign-in is not supported: requests go without the user's OAuth token");
  }
}

/** The plugin fields `settings` describe (markup aside), and the custom field definitions. */
export function settingsToInput(
  settings: Settings,
  warnings: string[],
): { input: Omit<PluginInput, "markup">; fields: CustomFieldDefinition[] } {
  const name = text(settings.name) || "Imported recipe";
  let strategy = text(settings.strategy).toLowerCase() || "static";
  if (strategy !== "static" && strategy !== "webhook" && strategy !== "polling") {
    warnings.push(`Strategy "${strategy}" is not supported: imported as static`);
    strategy = "static";
  }
  const input: Omit<PluginInput, "markup"> = {
    name,
    strategy: strategy as PluginInput["strategy"],
  };
  const data = staticData(settings.static_data);
  if (data) input.staticData = data;
  const polling = pollingOf(settings, warnings);
  if (strategy === "polling" && !polling) {
    warnings.push("The polling strategy has no polling_url: imported as static");
    input.strategy = "static";
  }
  if (polling && input.strategy === "polling") input.polling = polling;
  const refresh = refreshOf(settings.refresh_interval, warnings);
  if (refresh !== undefined) input.refreshMinutes = refresh;
  const fields = fieldsOf(settings.custom_fields, warnings);
  const defaults = fields.filter((field) => field.default !== undefined);
  if (defaults.length > 0) {
    input.customFields = Object.fromEntries(defaults.map((f) => [f.keyname, f.default]));
  }
  unsupported(settings, warnings);
  return { input, fields };
}
