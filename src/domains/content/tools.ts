/**
 * The analyze agent's eight tools (SPEC 4.6 stage 2, exactly these names): `list_notes`,
 * `read_note_content`, `list_templates`, `get_template_detail`, `get_template_schema`,
 * `list_devices`, `get_push_history`, `create_push`. Each validates its input with zod; a bad
 * input is a tool error naming the field, which the model reads and corrects. Everything is
 * scoped to the run's user: another user's note or device does not exist here.
 */
import { z } from "zod";
import { type AgentTool, ToolError } from "../../infra/ai/agent.ts";
import type { Db } from "../../schema.ts";
import type { DevicesService } from "../devices/service.ts";
import type { PushesService } from "../pushes/service.ts";
import { templateRegistry } from "../../infra/render/templates/registry.ts";
import { isUuid } from "../../infra/lib/ids.ts";
import { createAgentPush, ownDevice } from "./agent_push.ts";
import { clip, withoutNul } from "./heuristics.ts";
import * as repo from "./repository.ts";
import type { SummaryContent } from "./views.ts";

export const TOOL_NAMES = [
  "list_notes",
  "read_note_content",
  "list_templates",
  "get_template_detail",
  "get_template_schema",
  "list_devices",
  "get_push_history",
  "create_push",
] as const;

/** Longest note text `read_note_content` hands the model. */
const MAX_NOTE_TEXT = 8000;

const id = z.string().refine(isUuid, "must be a UUID");
const templateName = z.string().min(1).max(64);

const inputs = {
  list_notes: z.strictObject({
    onlyNew: z.boolean().default(true).describe(
      "Only notes not yet pushed to every one of the user's devices (default true)",
    ),
    limit: z.number().int().min(1).max(50).default(20),
  }),
  read_note_content: z.strictObject({ id: id.describe("The note's id from list_notes") }),
  list_templates: z.strictObject({}),
  get_template_detail: z.strictObject({ name: templateName }),
  get_template_schema: z.strictObject({ name: templateName }),
  list_devices: z.strictObject({}),
  get_push_history: z.strictObject({
    deviceId: id,
    limit: z.number().int().min(1).max(50).default(10),
  }),
  create_push: z.strictObject({
    deviceId: id.describe("A device id from list_devices"),
    template: templateName.describe("A template name from list_templates"),
    variables: z.record(z.string(), z.unknown()).describe(
      "The template's variables, matching its schema (get_template_schema)",
    ),
    rawItemIds: z.array(id).min(1).max(10).describe("The notes this push shows"),
    title: z.string().max(200).optional().describe("Push title; default: the note's title"),
    summary: z.string().max(500).optional().describe("1-2 sentences; default: the note's"),
    priority: z.number().int().min(0).max(10).optional().describe(
      "Higher is shown first (default 0)",
    ),
  }),
} satisfies Record<typeof TOOL_NAMES[number], z.ZodType>;

const DESCRIPTIONS: Record<typeof TOOL_NAMES[number], string> = {
  list_notes: "List the user's summarised notes (newest first) with their summaries, kinds, " +
    "suggested templates and the devices each was already pushed to.",
  read_note_content: "Read one note: its full text, summary, pictures (file ids and what they " +
    "show) and the pushes already made from it.",
  list_templates: "List the push templates (name, title, description).",
  get_template_detail: "Describe one template: its variables in words and a sample.",
  get_template_schema: "The JSON Schema the template's variables must match.",
  list_devices: "List the user's e-ink devices (800x480, black and white).",
  get_push_history: "The latest pushes of one device, newest first, with the notes they showed.",
  create_push: "Create a push for a device from a template and its variables; it is rendered " +
    "and queued on the device. A note is pushed to a device at most once.",
};

/** The first issue of a failed parse as a tool error naming the field. */
function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join(".");
  throw new ToolError(`Invalid input: ${field ? `${field}: ` : ""}${issue?.message}`);
}

export interface ToolDeps {
  db: Db;
  devices: DevicesService;
  pushes: PushesService;
}

/** The eight tools of one run, bound to its user. */
export function contentTools(
  deps: ToolDeps,
  context: { userId: string; runId: string | null },
): AgentTool[] {
  const { userId } = context;
  const registry = templateRegistry();
  const template = (name: string) => {
    const found = registry.get(name);
    if (!found) throw new ToolError(`Template ${name} not found; see list_templates`);
    return found;
  };
  const handlers: Record<typeof TOOL_NAMES[number], (input: unknown) => unknown> = {
    async list_notes(raw) {
      const input = parse(inputs.list_notes, raw);
      const devices = await deps.devices.list(userId);
      const rows = await repo.listSummarized(deps.db, userId, 200);
      const pushes = await repo.pushesOfItems(deps.db, rows.map((r) => r.id));
      const notes = rows.map((row) => {
        const pushedTo = [
          ...new Set(pushes.filter((p) => p.raw_item_id === row.id).map((p) => p.device_id)),
        ];
        const summary = row.summary_content as SummaryContent | null;
        return {
          id: row.id,
          title: summary?.title ?? row.title,
          kind: summary?.kind,
          summary: summary?.summary,
          keyPoints: summary?.keyPoints,
          suggestedTemplate: summary?.suggestedTemplate,
          language: summary?.language,
          createdAt: row.created_at.toISOString(),
          pushedTo,
        };
      }).filter((n) => !input.onlyNew || devices.some((d) => !n.pushedTo.includes(d.id)));
      return { notes: notes.slice(0, input.limit), more: notes.length > input.limit };
    },
    async read_note_content(raw) {
      const input = parse(inputs.read_note_content, raw);
      const row = await repo.findOwnedRawItem(deps.db, userId, input.id);
      if (!row) throw new ToolError(`Note ${input.id} not found`);
      const [attachments, pushes] = await Promise.all([
        repo.attachmentsOf(deps.db, [row.id]),
        repo.pushesOfItems(deps.db, [row.id]),
      ]);
      return {
        id: row.id,
        title: row.title,
        text: row.text === null ? null : clip(row.text, MAX_NOTE_TEXT),
        status: row.status,
        summary: row.summary_content,
        pictures: attachments.map((a) => ({
          fileId: a.file_id,
          filename: a.filename,
          contentType: a.content_type,
          description: a.description,
        })),
        pushes: pushes.map((p) => ({ pushId: p.push_id, deviceId: p.device_id })),
        createdAt: row.created_at.toISOString(),
      };
    },
    list_templates(raw) {
      parse(inputs.list_templates, raw);
      return registry.list().map(({ name, title, description }) => ({ name, title, description }));
    },
    get_template_detail(raw) {
      const found = template(parse(inputs.get_template_detail, raw).name);
      const schema = found.schema as {
        properties?: Record<string, { description?: string; type?: unknown }>;
        required?: string[];
      };
      return {
        name: found.name,
        title: found.title,
        description: found.description,
        variables: Object.entries(schema.properties ?? {}).map(([name, property]) => ({
          name,
          required: schema.required?.includes(name) ?? false,
          description: property.description ?? null,
          ...(found.imageVariables.includes(name)
            ? { picture: "the fileId of one of the note's pictures" }
            : {}),
        })),
        sample: found.sample,
      };
    },
    get_template_schema(raw) {
      return template(parse(inputs.get_template_schema, raw).name).schema;
    },
    async list_devices(raw) {
      parse(inputs.list_devices, raw);
      return (await deps.devices.list(userId)).map((d) => ({
        id: d.id,
        name: d.nickname ?? d.hwId,
        online: d.online,
        battery: d.battery ?? null,
        lastSeenAt: d.lastSeenAt ?? null,
        latestPushAt: d.latestPushAt ?? null,
      }));
    },
    async get_push_history(raw) {
      const input = parse(inputs.get_push_history, raw);
      await ownDevice(deps.devices, userId, input.deviceId);
      const page = await deps.pushes.list(userId, input.deviceId, { limit: input.limit });
      const items = await repo.itemsOfPushes(deps.db, page.items.map((p) => p.pushId));
      return page.items.map((push) => ({
        ...push,
        rawItemIds: items.filter((i) => i.push_id === push.pushId).map((i) => i.raw_item_id),
      }));
    },
    async create_push(raw) {
      return await createAgentPush(deps, context, withoutNul(parse(inputs.create_push, raw)));
    },
  };
  return TOOL_NAMES.map((name) => {
    // The Messages API takes the schema object itself; the dialect marker is left out.
    const { $schema: _, ...inputSchema } = z.toJSONSchema(inputs[name], { io: "input" });
    return {
      spec: { name, description: DESCRIPTIONS[name], inputSchema },
      run: async (input: unknown) => await handlers[name](input),
    };
  });
}
