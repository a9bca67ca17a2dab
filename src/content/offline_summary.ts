/**
 * The offline model's summary (CONTRACT.md): text heuristics for the note, and for each picture
 * a sentence built from what the render pool measured (size, brightness, contrast, layout, where
 * the detail is). Deterministic: the same item always gets the same summary.
 */
import type { ModelRequest, ModelResponse } from "../ai/model.ts";
import type { ImageFacts } from "../render/inspect.ts";
import {
  clip,
  detectKind,
  detectLanguage,
  findDate,
  keyPoints,
  lines,
  listItems,
  sentences,
} from "./heuristics.ts";
import { itemOf, SUMMARY_TOOL, TEMPLATE_OF_KIND } from "./summary_prompt.ts";
import type { SummaryKind } from "./views.ts";

const LAYOUT_WORDS = {
  document: "looks like a page of text or a document",
  photo: "looks like a photograph",
  graphic: "looks like a graphic with flat areas",
} as const;

/** One sentence about a picture, from its measurements alone. */
export function describePicture(facts: ImageFacts | null, problem?: string): string {
  if (!facts) return `A picture that could not be read${problem ? ` (${problem})` : ""}.`;
  const tone = facts.brightness < 35 ? "dark" : facts.brightness > 65 ? "bright" : "mid-toned";
  const contrast = facts.contrast < 20
    ? "low contrast"
    : facts.contrast > 45
    ? "high contrast"
    : "moderate contrast";
  const detail = facts.detail === "evenly"
    ? "detail spread evenly"
    : `most detail at the ${facts.detail}`;
  return `A ${tone} ${facts.orientation} picture, ${facts.width}x${facts.height} px, that ${
    LAYOUT_WORDS[facts.layout]
  }; ${contrast} (brightness ${facts.brightness}%), ${detail}.`;
}

/** A title of at most 80 characters: the given one, else the first line, else the kind's. */
function titleOf(title: string | null, text: string, kind: SummaryKind, files: string[]) {
  if (title?.trim()) return clip(title.trim(), 80);
  const first = lines(text)[0];
  if (first) return clip(first.replace(/^[-*•\d.)\s[\]xX]+/, "").trim() || first, 80);
  if (kind === "photo") {
    const named = files.find(Boolean)?.replace(/\.[a-z0-9]+$/i, "");
    return named ? clip(named, 80) : "Photo";
  }
  return "Note";
}

/** The `content.summarize` behaviour of the offline model. */
export function offlineSummarize(request: ModelRequest): ModelResponse {
  const item = itemOf(request);
  const text = item?.text ?? "";
  const pictures = item?.pictures ?? [];
  const kind = detectKind(item?.title ?? "", text, pictures.length);
  const descriptions = pictures.map((p) => describePicture(p.measured, p.problem));
  const templates = item?.templates.map((t) => t.name) ?? [];
  let template = TEMPLATE_OF_KIND[kind];
  // A dated note without a list of times reads best as a countdown.
  if (kind === "event" && findDate(text) && listItems(text).length === 0) template = "reminder";
  if (!templates.includes(template)) template = templates.includes("note") ? "note" : template;
  const summary = text.trim()
    ? clip(sentences(text, 2), 400)
    : pictures.length === 1
    ? descriptions[0]
    : `${pictures.length} pictures. ${descriptions[0] ?? ""}`.trim();
  const points = text.trim() ? keyPoints(text, 5) : descriptions.slice(0, 5);
  return {
    content: [{
      type: "tool_use",
      id: "offline_summary",
      name: SUMMARY_TOOL,
      input: {
        title: titleOf(item?.title ?? null, text, kind, pictures.map((p) => p.filename ?? "")),
        summary,
        keyPoints: points,
        kind,
        language: text.trim() ? detectLanguage(text) : "und",
        suggestedTemplate: template,
        imageDescriptions: descriptions,
      },
    }],
    stopReason: "tool_use",
    usage: { inputTokens: 0, outputTokens: 0 },
    model: "offline",
  };
}
