/**
 * Template variables of a note, as the offline agent fills them (CONTRACT.md: "with the template
 * that fits the item's kind"). Each builder keeps to its template's schema limits; when a note
 * lacks what a template needs (a checklist without list lines, an agenda without a date, a photo
 * without a picture) it becomes a plain note.
 */
import {
  asQuote,
  clip,
  findDate,
  findTime,
  keyPoints,
  lines,
  listItems,
  trimChars,
  withoutDates,
} from "./heuristics.ts";
import { TEMPLATE_OF_KIND } from "./summary_prompt.ts";
import type { SummaryContent } from "./views.ts";

/** What `read_note_content` tells about a note (the fields the builders use). */
export interface NoteForPush {
  id: string;
  title: string | null;
  text: string | null;
  summary: SummaryContent | null;
  pictures: Array<{ fileId: string; description: string | null }>;
  createdAt: string;
}

export interface TemplateChoice {
  template: string;
  variables: Record<string, unknown>;
}

function titleOf(note: NoteForPush): string {
  return note.summary?.title ?? note.title ?? "Note";
}

function asNote(note: NoteForPush): TemplateChoice {
  const body = note.text?.trim() ? note.text : note.summary?.summary || titleOf(note);
  return {
    template: "note",
    variables: {
      title: clip(titleOf(note), 200),
      body: clip(body, 20_000),
      footer: new Date(note.createdAt).toLocaleDateString("en-GB", {
        day: "numeric",
        month: "long",
        year: "numeric",
        timeZone: "UTC",
      }),
    },
  };
}

const BUILDERS: Record<string, (note: NoteForPush) => TemplateChoice | undefined> = {
  note: asNote,
  checklist(note) {
    const items = listItems(note.text ?? "").slice(0, 100);
    if (items.length === 0) return undefined;
    return {
      template: "checklist",
      variables: {
        title: clip(titleOf(note), 200),
        items: items.map((i) => ({ text: clip(i.text, 500), done: i.done })),
      },
    };
  },
  agenda(note) {
    const text = note.text ?? "";
    const date = findDate(`${note.title ?? ""}\n${text}`);
    if (!date) return undefined;
    const timed = lines(text).filter((l) => findTime(l) && !/^\d{4}-\d{2}-\d{2}$/.test(l));
    const events = timed.length
      ? timed.map((line) => ({
        time: findTime(line)!,
        title: clip(
          trimChars(
            line.replace(/\b\d{4}-\d{2}-\d{2}\b/, "")
              .replace(/\b([01]?\d|2[0-3])[:.h][0-5]\d\b|\b(1[0-2]|0?[1-9])\s?(am|pm)\b/i, ""),
            /[\s\-–—:,*•]/,
            /[\s\-–—:,]/,
          ) || titleOf(note),
          300,
        ),
      }))
      : [{ time: findTime(text) ?? "All day", title: clip(titleOf(note), 300) }];
    return { template: "agenda", variables: { date, events: events.slice(0, 100) } };
  },
  reminder(note) {
    const date = findDate(`${note.title ?? ""}\n${note.text ?? ""}`);
    if (!date) return undefined;
    const title = titleOf(note);
    // What the note says besides its title and date, e.g. what to bring.
    let rest = withoutDates(note.text ?? "");
    if (rest.toLowerCase().startsWith(title.toLowerCase())) rest = rest.slice(title.length);
    rest = rest.replace(/^[\s,;:.\-–—]+/, "");
    rest = rest ? rest[0].toUpperCase() + rest.slice(1) : "";
    return {
      template: "reminder",
      variables: { title: clip(title, 200), date, ...(rest ? { note: clip(rest, 1000) } : {}) },
    };
  },
  quote(note) {
    const text = note.text?.trim();
    if (!text) return undefined;
    const quote = asQuote(text);
    return {
      template: "quote",
      variables: quote
        ? {
          quote: clip(quote.quote, 2000),
          ...(quote.author ? { author: clip(quote.author, 200) } : {}),
        }
        : { quote: clip(text, 2000) },
    };
  },
  photo(note) {
    const picture = note.pictures[0];
    if (!picture) return undefined;
    return {
      template: "photo",
      variables: { photo: picture.fileId, caption: clip(titleOf(note), 300) },
    };
  },
  headline(note) {
    const points = note.summary?.keyPoints?.length
      ? note.summary.keyPoints
      : keyPoints(note.text ?? "", 5);
    return {
      template: "headline",
      variables: {
        label: "Summary",
        headline: clip(titleOf(note), 300),
        points: points.slice(0, 20).map((p) => clip(p, 500)).filter(Boolean),
      },
    };
  },
};

/** The template and variables the offline agent pushes a note with. */
export function chooseTemplate(note: NoteForPush): TemplateChoice {
  const kind = note.summary?.kind ?? "note";
  const candidates = [note.summary?.suggestedTemplate, TEMPLATE_OF_KIND[kind]];
  for (const name of candidates) {
    const builder = name ? BUILDERS[name] : undefined;
    const choice = builder?.(note);
    if (choice) return choice;
  }
  return asNote(note);
}
