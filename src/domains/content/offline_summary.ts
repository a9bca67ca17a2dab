/**
 * The offline model's summary (CONTRACT.md): text heuristics for the note, and for each picture
 * a sentence built from what the render pool measured (size, brightness, contrast, layout, where
 * the detail is). Deterministic: the same item always gets the same summary.
 */
import type { ModelRequest, ModelResponse } from "../../infra/ai/model.ts";
import type { ImageFacts } from "../../infra/render/inspect.ts";
import {
  asQuote,
  clip,
  detectKind,
  detectLanguage,
  findDate,
  headOf,
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

/** `lake-bled_2.jpg` → `Lake bled 2`. */
function humanise(filename: string): string {
  const words = filename.replace(/\.[a-z0-9]+$/i, "").replace(/[-_]+/g, " ").trim();
  return words ? words[0].toUpperCase() + words.slice(1) : "";
}

/**
 * A title of at most 80 characters: the given one; for a quote, its author; else the first
 * line's first clause (dates and times left out); for pictures alone, the file name.
 */
function titleOf(title: string | null, text: string, kind: SummaryKind, files: string[]) {
  if (title?.trim()) return clip(title.trim(), 80);
  const quote = kind === "quote" ? asQuote(text) : undefined;
  if (quote) return quote.author ? clip(`Quote by ${quote.author}`, 80) : "Quote";
  const first = lines(text)[0];
  if (first) return headOf(first.replace(/^[-*•\d.)\s[\]xX]+/, "").trim() || first, 80);
  if (kind === "photo") return clip(humanise(files.find(Boolean) ?? "") || "Photo", 80);
  return "Note";
}

/** One or two sentences: a list counted, a quote as said, else the first two sentences. */
function summaryOf(text: string, kind: SummaryKind): string {
  const items = listItems(text);
  if (kind === "todo" && items.length) {
    const open = items.filter((i) => !i.done);
    const first = open.slice(0, 3).map((i) => i.text).join(", ");
    return clip(
      `A list of ${items.length} item${items.length === 1 ? "" : "s"}, ${open.length} still open${
        first ? `: ${first}` : ""
      }.`,
      400,
    );
  }
  const quote = kind === "quote" ? asQuote(text) : undefined;
  if (quote) return clip(`“${quote.quote}”${quote.author ? ` — ${quote.author}` : ""}`, 400);
  return clip(sentences(text, 2), 400);
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
    ? summaryOf(text, kind)
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
