/**
 * The MCP server of one caller (issue 24, CONTRACT.md "Integrations: MCP server and event
 * webhooks"): tools and resources that are thin calls into the services the REST API uses, with
 * the credential's user as the caller and the input schemas of the same zod schemas. A refused or
 * failed call is a tool result with `isError: true` (the service's own message), never a protocol
 * error: another user's device reads exactly as it does on `/api/*` (403), unknown ids as 404.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import { encodeBase64 } from "@oslojs/encoding";
import { z } from "zod";
import { databaseUnavailable, isDatabaseUnavailable } from "../../infra/db/errors.ts";
import { AppError, badRequest } from "../../errors.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import type { Log } from "../../infra/lib/log.ts";
import type { Services } from "../../services.ts";
import { uploadRawItemInput } from "../content/upload_raw_item.ts";
import { confirmUploadInput } from "../pushes/confirm_upload.ts";
import { RENDERABLE_TYPES } from "../../infra/render/types.ts";
import { templateRegistry } from "../../infra/render/templates/registry.ts";
import * as files from "../files/repository.ts";
import { assetInput, createContentInput } from "../targetless/inputs.ts";
import type { LinkBody, LinkFailure } from "../../infra/outbound/fetch_link.ts";
import { MERGE_STRATEGIES } from "../plugins/merge.ts";
import { PLUGIN_VIEWS } from "../plugins/inputs.ts";

/** What the tools call: the services of `/api/*` and the link assets' guarded fetcher. */
export interface McpDeps {
  services: Pick<
    Services,
    | "devices"
    | "pushes"
    | "templates"
    | "content"
    | "targetless"
    | "db"
    | "analyze"
    | "config"
    | "plugins"
    | "playlists"
  >;
  /** The SSRF-guarded fetch of link assets (src/infra/outbound/fetch_link.ts). */
  links: { fetch(url: string): Promise<LinkBody | LinkFailure> };
  log: Log;
  /** How long `create_content` waits for its picture before answering "still processing". */
  contentWaitMs?: number;
  /** Ends a wait early (the HTTP client went away). */
  signal?: AbortSignal;
}

export const SERVER_INFO = { name: "device-display-service", version: "1.0.0" };

/**
 * One JSON Schema validator for every server: the SDK makes an Ajv instance per server by
 * default (a fifth of a stateless request's CPU; it is only used for elicitation, which these
 * tools never send).
 */
const VALIDATOR = new AjvJsonSchemaValidator();

/** The tool names, in the order `tools/list` shows them (docs/integrations.md lists them). */
export const TOOL_NAMES = [
  "list_devices",
  "list_templates",
  "preview_template",
  "show_note",
  "push_template",
  "add_note",
  "push_image_url",
  "create_content",
  "get_push",
  "get_content",
  "list_plugins",
  "post_plugin_data",
  "push_plugin",
  "list_playlists",
  "assign_playlist",
] as const;

const CONTENT_WAIT_MS = 20_000;
const POLL_MS = 250;

const json = (value: unknown): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
});

const png = (bytes: Uint8Array, note: unknown): CallToolResult => ({
  content: [
    { type: "text", text: JSON.stringify(note, null, 2) },
    { type: "image", data: encodeBase64(bytes), mimeType: "image/png" },
  ],
});

const refused = (message: string): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: message }],
});

/** A tool's declaration: its description, input schema (a zod object) and read-only hint. */
interface ToolSpec<S extends z.ZodObject> {
  description: string;
  input: S;
  readOnly?: boolean;
}

/**
 * Registers a tool whose body runs as the caller: an AppError is the refusal the API would
 * answer (its status and message), anything else is logged and answered as an internal error.
 */
function addTool<S extends z.ZodObject>(
  server: McpServer,
  log: Log,
  name: typeof TOOL_NAMES[number],
  spec: ToolSpec<S>,
  body: (args: z.output<S>) => Promise<CallToolResult>,
) {
  server.registerTool(name, {
    description: spec.description,
    inputSchema: spec.input,
    annotations: { readOnlyHint: spec.readOnly ?? false },
  }, async (args: unknown): Promise<CallToolResult> => {
    try {
      return await body(args as z.output<S>);
    } catch (error) {
      const known = isDatabaseUnavailable(error) ? databaseUnavailable() : error;
      if (known instanceof AppError) return refused(`${known.status}: ${known.message}`);
      log.error("mcp tool failed", { tool: name, error: String(error) });
      return refused("Internal error; try again later");
    }
  });
}

const deviceId = uuidParam.describe("A device id from list_devices");
const templateName = z.string().max(64).describe("A template name from list_templates");

/**
 * Each tool's input schema, built once (a request builds a server, not its schemas): the API's
 * own zod schemas where a REST route takes the same input.
 */
const INPUTS = {
  list_devices: z.object({}),
  list_templates: z.object({}),
  preview_template: z.object({
    name: templateName,
    variables: z.record(z.string(), z.unknown()).describe("The template's variables"),
  }),
  // The `note` template's variables (templates/note/schema.json), which the registry checks.
  show_note: z.object({
    deviceId,
    title: z.string().max(200).optional(),
    body: z.string().min(1).max(20_000).describe("The note's text; line breaks are kept"),
    footer: z.string().max(200).optional(),
  }),
  push_template: z.object({
    deviceId,
    template: templateName,
    variables: z.record(z.string(), z.unknown()).describe("Matching the template's schema"),
    title: z.string().max(200).optional(),
  }),
  add_note: uploadRawItemInput.pick({ title: true, text: true }).required({ text: true }).extend({
    analyzeNow: z.boolean().optional().describe(
      "Start an analyze run as soon as the note is summarised, instead of at the next " +
        "scheduled run (ANALYZE_SCHEDULE, hourly by default)",
    ),
  }),
  push_image_url: confirmUploadInput.pick({ title: true, dither: true, mode: true, fit: true })
    .extend({
      deviceId,
      url: z.string().max(2048).describe("http or https URL of a PNG or JPEG"),
    }),
  create_content: createContentInput.pick({ intent: true, title: true, output: true }).extend({
    assets: z.array(z.union([assetInput.options[0], assetInput.options[1]])).max(20)
      .optional().describe("Text and link assets"),
  }),
  get_push: z.object({ deviceId, pushId: uuidParam }),
  get_content: z.object({ id: uuidParam.describe("A content id from create_content") }),
  list_plugins: z.object({}),
  post_plugin_data: z.object({
    pluginId: uuidParam.describe("A webhook plugin's id from list_plugins"),
    mergeVariables: z.record(z.string(), z.unknown()).describe(
      "What the plugin's markup sees at the top level",
    ),
    mergeStrategy: z.enum(MERGE_STRATEGIES).optional().describe(
      "replace (default), deep_merge (nested objects merged) or stream (top-level arrays " +
        "appended, the newest streamLimit kept)",
    ),
    streamLimit: z.number().int().min(1).max(10_000).optional(),
  }),
  push_plugin: z.object({
    pluginId: uuidParam.describe("A plugin id from list_plugins"),
    deviceId,
    view: z.enum(PLUGIN_VIEWS).optional().describe("Default full"),
  }),
  list_playlists: z.object({}),
  assign_playlist: z.object({
    deviceId,
    playlistId: uuidParam.nullable().describe(
      "A playlist id from list_playlists; null stops the device's playlist",
    ),
  }),
} satisfies Record<typeof TOOL_NAMES[number], z.ZodObject>;

/** A picture variable names one of the caller's files (as the agent's `create_push` checks). */
async function checkPictures(
  deps: McpDeps,
  userId: string,
  template: string,
  variables: Record<string, unknown>,
) {
  const names = templateRegistry().get(template)?.imageVariables ?? [];
  const ids = names.map((name) => [name, variables[name]] as const)
    .filter((entry): entry is readonly [string, string] => typeof entry[1] === "string");
  if (ids.length === 0) return;
  const owned = new Set(
    (await files.confirmedUserFiles(deps.services.db, userId, ids.map(([, id]) => id)))
      .filter((f) => f.purpose !== "push_render").map((f) => f.id),
  );
  for (const [name, id] of ids) {
    if (!owned.has(id)) throw badRequest(`${name}: ${id} is not one of your files`);
  }
}

/** A push of a template with checked variables to one of the caller's devices (PREPARE). */
async function pushTemplate(
  deps: McpDeps,
  userId: string,
  input: { deviceId: string; template: string; variables: unknown; title?: string },
) {
  const { devices, pushes } = deps.services;
  // 404 unknown template, 400 naming the variable: the preview's check.
  const variables = await templateRegistry().validate(input.template, input.variables);
  await devices.owned(userId, input.deviceId);
  await checkPictures(deps, userId, input.template, variables);
  const push = await pushes.create({
    userId,
    deviceId: input.deviceId,
    title: input.title ?? "",
    template: input.template,
    params: variables,
  });
  return { pushId: push.id, deviceId: input.deviceId, status: push.status };
}

function sleep(ms: number, signal?: AbortSignal) {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** A content, with its picture as image content once its initial rendition is ready. */
async function contentResult(deps: McpDeps, userId: string, id: string, wait: boolean) {
  const { contents, presentations } = deps.services.targetless;
  const deadline = Date.now() + (wait ? deps.contentWaitMs ?? CONTENT_WAIT_MS : 0);
  for (;;) {
    const content = await contents.get(userId, id);
    const presentationId = content.presentationIds[0];
    if (content.state === "ready" && presentationId) {
      const bytes = await presentations.initialPng(userId, presentationId);
      if (bytes) return png(bytes, content);
    }
    if (content.state === "failed" || Date.now() >= deadline || deps.signal?.aborted) {
      return json(content);
    }
    await sleep(POLL_MS, deps.signal);
  }
}

/**
 * When the analyze schedule next runs after `now`, in words: the time for the default kind of
 * schedule (`M * * * *`, once an hour), else the cron expression itself.
 */
export function nextAnalyzeRun(schedule: string, now = new Date()): string {
  const hourly = /^(\d{1,2})\s+\*\s+\*\s+\*\s+\*$/.exec(schedule);
  if (!hourly || Number(hourly[1]) > 59) return `at the next run of ANALYZE_SCHEDULE "${schedule}"`;
  const next = new Date(now);
  next.setUTCSeconds(0, 0);
  next.setUTCMinutes(Number(hourly[1]));
  if (next <= now) next.setUTCHours(next.getUTCHours() + 1);
  return `at the next scheduled analyze run, ${next.toISOString().slice(11, 16)} UTC ` +
    `(ANALYZE_SCHEDULE "${schedule}")`;
}

/**
 * `add_note analyzeNow`: waits (like `create_content`) for the note's summary, then queues a
 * MANUAL run, as `POST /api/analyze/trigger` does. Says what happened in words.
 */
async function analyzeNoteNow(deps: McpDeps, userId: string, noteId: string): Promise<string> {
  const deadline = Date.now() + (deps.contentWaitMs ?? CONTENT_WAIT_MS);
  let note = await deps.services.content.get(userId, noteId);
  while (note.status === "processing" && Date.now() < deadline && !deps.signal?.aborted) {
    await sleep(POLL_MS, deps.signal);
    note = await deps.services.content.get(userId, noteId);
  }
  if (note.status === "failed") return "The note's summary failed, so no analyze run was started";
  const added = await deps.services.analyze.trigger(userId, "MANUAL");
  const run = added
    ? "An analyze run is queued now"
    : "An analyze run is already queued or running";
  return note.status === "summarized"
    ? `${run}: it decides within minutes which displays show the note`
    : `${run}, but the note is still being summarised: if this run misses it, the next one ` +
      "takes it (add_note with analyzeNow again, or wait for the schedule)";
}

/** The MCP server for one request (stateless HTTP) or one stdio session, acting as `userId`. */
export function createMcpServer(deps: McpDeps, userId: string): McpServer {
  const { services, log } = deps;
  const server = new McpServer(SERVER_INFO, {
    jsonSchemaValidator: VALIDATOR,
    instructions: "Put notes, templates and pictures on the user's e-ink displays " +
      "(800x480, black and white). Start with list_devices.",
  });

  const add = <S extends z.ZodObject>(
    name: typeof TOOL_NAMES[number],
    spec: ToolSpec<S>,
    body: (args: z.output<S>) => Promise<CallToolResult>,
  ) => addTool(server, log, name, spec, body);

  add("list_devices", {
    description: "List your displays with their health: online, battery, firmware, last seen, " +
      "latest push.",
    input: INPUTS.list_devices,
    readOnly: true,
  }, async () => json(await services.devices.list(userId)));

  add("list_templates", {
    description: "List the push templates with the JSON Schema of each one's variables.",
    input: INPUTS.list_templates,
    readOnly: true,
  }, () => Promise.resolve(json(services.templates.list())));

  add("preview_template", {
    description: "Render a template with variables to its 800x480 1-bit PNG, without pushing it.",
    input: INPUTS.preview_template,
    readOnly: true,
  }, async ({ name, variables }) => {
    const bytes = await services.templates.preview(userId, name, variables, deps.signal);
    return png(bytes, { template: name });
  });

  add("show_note", {
    description: "Put a short note on a display now (the `note` template: title, body, footer).",
    input: INPUTS.show_note,
  }, async ({ deviceId, title, body, footer }) => {
    const variables = { body, ...(title ? { title } : {}), ...(footer ? { footer } : {}) };
    return json(
      await pushTemplate(deps, userId, { deviceId, template: "note", variables, title }),
    );
  });

  add("push_template", {
    description: "Push a template with given variables to a display (see list_templates).",
    input: INPUTS.push_template,
  }, async (input) => json(await pushTemplate(deps, userId, input)));

  add("add_note", {
    description: "Add a note to your inbox: it is summarised and the analyze agent decides which " +
      "displays show it (the content pipeline, like the app's upload). That happens at the next " +
      "scheduled analyze run (hourly by default), or at once with analyzeNow: true.",
    input: INPUTS.add_note,
  }, async ({ title, text, analyzeNow }) => {
    const created = await services.content.upload(userId, { title, text });
    const note = await services.content.confirm(userId, created.id);
    // Issue 34: the note waited for the hourly run with nothing said.
    const shows = analyzeNow
      ? await analyzeNoteNow(deps, userId, note.id)
      : `The analyze agent decides which displays show it ${
        nextAnalyzeRun(services.config.analyze.schedule)
      }; add_note with analyzeNow: true starts a run at once`;
    return json({ ...note, shows });
  });

  add("push_image_url", {
    description: "Fetch a PNG or JPEG from a public http(s) URL (5 s, 2 MiB at most; no private " +
      "addresses) and push it to a display as a custom push.",
    input: INPUTS.push_image_url,
  }, async ({ deviceId, url, title, dither, mode, fit }) => {
    // The device first: nothing is fetched for a caller who may not push to it.
    await services.devices.owned(userId, deviceId);
    const fetched = await deps.links.fetch(url);
    if (!fetched.ok) return refused(`${fetched.code}: ${fetched.message}`);
    if (!RENDERABLE_TYPES.has(fetched.mediaType)) {
      return refused(`The URL answered ${fetched.mediaType || "no type"}, not an image`);
    }
    return json(
      await services.pushes.customPushOfBytes(userId, deviceId, {
        bytes: fetched.body,
        contentType: fetched.mediaType,
        title,
        dither,
        mode,
        fit,
      }),
    );
  });

  add("create_content", {
    description: "Create a targetless content (mode auto, needs the pro plan) from an intent, " +
      "text and links; waits for its picture and returns it as PNG. Not tied to a display.",
    input: INPUTS.create_content,
  }, async (input) => {
    const created = await services.targetless.contents.create(userId, {
      ...input,
      mode: "auto",
      output: input.output ?? { preset: "default" },
    });
    await services.targetless.contents.confirm(userId, created.content.id);
    return await contentResult(deps, userId, created.content.id, true);
  });

  add("get_push", {
    description: "Read a push's state (PREPARE, QUEUE, PUBLISHED, CONFIRMED; error when its " +
      "render failed).",
    input: INPUTS.get_push,
    readOnly: true,
  }, async ({ deviceId, pushId }) => json(await services.pushes.state(userId, deviceId, pushId)));

  add("get_content", {
    description: "Read a content's state; once ready, its picture as PNG.",
    input: INPUTS.get_content,
    readOnly: true,
  }, ({ id }) => contentResult(deps, userId, id, false));

  add("list_plugins", {
    description: "List your plugins (screens drawn from Liquid markup and data) with each " +
      "webhook plugin's URL and the last polling error.",
    input: INPUTS.list_plugins,
    readOnly: true,
  }, async () => json(await services.plugins.list(userId)));

  add("post_plugin_data", {
    description: "Send a webhook plugin new data, as a post to its webhook URL would (the same " +
      "merge strategies and limits); displays showing it get it at their next render.",
    input: INPUTS.post_plugin_data,
  }, async ({ pluginId, mergeVariables, mergeStrategy, streamLimit }) => {
    await services.plugins.postAsOwner(userId, pluginId, {
      merge_variables: mergeVariables,
      merge_strategy: mergeStrategy,
      stream_limit: streamLimit,
    });
    return json(await services.plugins.data(userId, pluginId));
  });

  add(
    "push_plugin",
    {
      description: "Draw a plugin now and push it to a display (for its panel).",
      input: INPUTS.push_plugin,
    },
    async ({ pluginId, deviceId, view }) =>
      json(await services.plugins.push(userId, pluginId, { deviceId, view })),
  );

  add("list_playlists", {
    description: "List your playlists: rotations of plugins and mashups, each item with its " +
      "duration, weekdays and hours in the playlist's time zone.",
    input: INPUTS.list_playlists,
    readOnly: true,
  }, async () => json(await services.playlists.list(userId)));

  add(
    "assign_playlist",
    {
      description: "Run a playlist on a device (it shows the first due item now, each drawn for " +
        "its panel), or stop it with playlistId null.",
      input: INPUTS.assign_playlist,
    },
    async ({ deviceId, playlistId }) =>
      json(await services.playlists.assign(userId, deviceId, playlistId)),
  );

  server.registerResource("devices", "dds://devices", {
    description: "Your displays with their health",
    mimeType: "application/json",
  }, async (uri: URL) => ({
    contents: [{
      uri: uri.href,
      mimeType: "application/json",
      text: JSON.stringify(await services.devices.list(userId)),
    }],
  }));

  server.registerResource("templates", "dds://templates", {
    description: "The push templates and their variables' JSON Schemas",
    mimeType: "application/json",
  }, (uri: URL) => ({
    contents: [{
      uri: uri.href,
      mimeType: "application/json",
      text: JSON.stringify(services.templates.list()),
    }],
  }));

  return server;
}
