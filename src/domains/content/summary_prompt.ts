/**
 * The summary stage's model request and the reading of its answer (SPEC 4.6 stage 1). The item
 * travels as JSON in one text block (the offline model reads the same block), each picture as a
 * grey preview image block after it (a vision model looks at those) with its measurements in the
 * JSON. The result comes back as a call of the one tool `record_summary`.
 */
import { encodeBase64 } from "@oslojs/encoding";
import { z } from "zod";
import type { ContentBlock, ModelRequest, ModelResponse, ToolSpec } from "../../infra/ai/model.ts";
import type { ImageFacts } from "../../infra/render/inspect.ts";
import { clip, withoutNul } from "./heuristics.ts";
import { SUMMARY_KINDS, type SummaryContent, type SummaryKind } from "./views.ts";

export const SUMMARY_TASK = "content.summarize";
export const SUMMARY_TOOL = "record_summary";

/** The template that fits each kind when the model names none we have. */
export const TEMPLATE_OF_KIND: Record<SummaryKind, string> = {
  note: "note",
  todo: "checklist",
  event: "agenda",
  quote: "quote",
  photo: "photo",
  reference: "headline",
};

/** One picture of the item as the summary stage sees it. */
export interface SummaryPicture {
  filename: string | null;
  /** Measurements; null when the picture could not be decoded. */
  facts: ImageFacts | null;
  /** The grey JPEG preview for a vision model. */
  preview?: Uint8Array;
  /** Why the picture could not be read. */
  problem?: string;
}

export interface SummaryInput {
  title: string | null;
  text: string | null;
  pictures: SummaryPicture[];
  templates: Array<{ name: string; title: string; description: string }>;
}

/** What the summary stage stores: the summary and one description per picture. */
export interface SummaryResult {
  summary: SummaryContent;
  descriptions: string[];
}

const SYSTEM = [
  "You summarise a user's note and pictures for an 800x480 black-and-white e-ink display.",
  "Call record_summary exactly once. title: at most 80 characters. summary: one or two",
  "sentences. keyPoints: up to 5 short points, most important first. kind: note, todo, event,",
  "quote, photo or reference (an item with pictures and no text is a photo). language: the",
  "BCP 47 tag of the note's language. suggestedTemplate: the template that shows it best.",
  "imageDescriptions: one sentence per picture, in order, saying what it shows.",
  "Write in the note's own language.",
].join(" ");

/** The `record_summary` tool; `templates` are the names the model may suggest. */
export function summaryTool(templates: string[]): ToolSpec {
  return {
    name: SUMMARY_TOOL,
    description: "Record the summary of the raw item.",
    inputSchema: {
      type: "object",
      properties: {
        title: { type: "string", maxLength: 80 },
        summary: { type: "string", maxLength: 400 },
        keyPoints: { type: "array", items: { type: "string", maxLength: 200 }, maxItems: 5 },
        kind: { type: "string", enum: [...SUMMARY_KINDS] },
        language: { type: "string" },
        suggestedTemplate: { type: "string", enum: templates },
        imageDescriptions: { type: "array", items: { type: "string", maxLength: 300 } },
      },
      required: ["title", "summary", "keyPoints", "kind", "language", "suggestedTemplate"],
    },
  };
}

/** The model request of one item. */
export function summaryRequest(input: SummaryInput): ModelRequest {
  const item = {
    title: input.title,
    text: input.text,
    pictures: input.pictures.map((p, i) => ({
      index: i + 1,
      filename: p.filename,
      measured: p.facts,
      ...(p.problem ? { problem: p.problem } : {}),
    })),
    templates: input.templates,
  };
  const content: ContentBlock[] = [{
    type: "text",
    text: `<raw_item>${JSON.stringify(item)}</raw_item>`,
  }];
  input.pictures.forEach((picture, i) => {
    if (!picture.preview) return;
    content.push({ type: "text", text: `Picture ${i + 1}:` });
    content.push({ type: "image", mediaType: "image/jpeg", data: encodeBase64(picture.preview) });
  });
  return {
    task: SUMMARY_TASK,
    system: SYSTEM,
    messages: [{ role: "user", content }],
    tools: [summaryTool(input.templates.map((t) => t.name))],
    toolChoice: { name: SUMMARY_TOOL },
    maxTokens: 1024,
  };
}

/** The item JSON of a summary request (the offline model reads it back). */
export function itemOf(request: ModelRequest): z.infer<typeof itemSchema> | undefined {
  for (const message of request.messages) {
    for (const block of message.content) {
      if (block.type !== "text") continue;
      const match = block.text.match(/^<raw_item>([\s\S]*)<\/raw_item>$/);
      if (!match) continue;
      const parsed = itemSchema.safeParse(JSON.parse(match[1]));
      if (parsed.success) return parsed.data;
    }
  }
  return undefined;
}

const itemSchema = z.object({
  title: z.string().nullable(),
  text: z.string().nullable(),
  pictures: z.array(z.object({
    index: z.number(),
    filename: z.string().nullable(),
    measured: z.custom<ImageFacts>().nullable(),
    problem: z.string().optional(),
  })),
  templates: z.array(z.object({ name: z.string(), title: z.string(), description: z.string() })),
});

const answerSchema = z.object({
  title: z.string(),
  summary: z.string(),
  keyPoints: z.array(z.string()).catch([]),
  kind: z.string(),
  language: z.string().catch("und"),
  suggestedTemplate: z.string().catch(""),
  imageDescriptions: z.array(z.string()).catch([]),
});

/**
 * The summary in a model's answer, cut to the contract's sizes: a kind the contract does not
 * know is `note`, a template we do not have is the kind's. Undefined when the model called no
 * `record_summary` with at least a title and a summary (the job retries).
 */
export function parseSummary(
  response: ModelResponse,
  templates: string[],
  pictures: number,
): SummaryResult | undefined {
  const call = response.content.find((b) => b.type === "tool_use" && b.name === SUMMARY_TOOL);
  if (!call || call.type !== "tool_use") return undefined;
  const parsed = answerSchema.safeParse(withoutNul(call.input));
  if (!parsed.success) return undefined;
  const answer = parsed.data;
  const title = clip(answer.title.trim(), 80);
  const summary = clip(answer.summary.trim(), 400);
  if (!title || !summary) return undefined;
  const kind = (SUMMARY_KINDS as readonly string[]).includes(answer.kind)
    ? answer.kind as SummaryKind
    : "note";
  const suggestedTemplate = templates.includes(answer.suggestedTemplate)
    ? answer.suggestedTemplate
    : TEMPLATE_OF_KIND[kind];
  return {
    summary: {
      title,
      summary,
      keyPoints: answer.keyPoints.map((p) => clip(p.trim(), 200)).filter(Boolean).slice(0, 5),
      kind,
      language: /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(answer.language)
        ? answer.language
        : "und",
      suggestedTemplate,
    },
    descriptions: Array.from(
      { length: pictures },
      (_, i) => clip(answer.imageDescriptions[i]?.trim() ?? "", 300),
    ),
  };
}
