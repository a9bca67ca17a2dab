/**
 * Text heuristics of the offline model (CONTRACT.md: deterministic, no network): what kind of
 * note a text is, its first sentences, its list items, dates and times, its language. Pure
 * functions; the offline summary and the offline agent's template variables are built on them.
 */
import type { SummaryKind } from "./views.ts";

/** A list line: `- x`, `* x`, `• x`, `1. x`, `[ ] x`, `- [x] x`. */
const LIST_LINE = /^\s*(?:[-*•·–]\s+|\d{1,2}[.)]\s+)?(\[[ xX✓]?\]\s*)?(.+?)\s*$/;
const BULLET = /^\s*(?:[-*•·–]|\d{1,2}[.)])\s+/;
const CHECKBOX = /^\s*(?:[-*•]\s*)?\[[ xX✓]?\]/;
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/;
const TIME = /\b([01]?\d|2[0-3])[:.h]([0-5]\d)\b|\b(1[0-2]|0?[1-9])\s?(am|pm)\b/i;
const URL = /\bhttps?:\/\/\S+/i;
const QUOTE_OPEN = /^\s*["“„«»‘'「『]/;
const QUOTE_LINE = /^\s*["“„«»‘'「『](.+?)["”“»«’'」』]\s*(?:(?:[-—–~]\s*)(.+))?$/s;
const TODO_WORDS =
  /\b(to ?do|tasks?|checklist|shopping|groceries|packing|einkauf|liste|courses)\b/i;
const EVENT_WORDS =
  /\b(meeting|appointment|dinner|lunch|party|birthday|deadline|flight|train|concert|dentist|doctor|termin|rendez-vous|reunión)\b/i;

/** Non-empty lines, trimmed. */
export function lines(text: string): string[] {
  return text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
}

/** List items of a text: the lines that carry a bullet, number or checkbox (done when ticked). */
export function listItems(text: string): Array<{ text: string; done: boolean }> {
  return lines(text).filter((l) => BULLET.test(l) || CHECKBOX.test(l)).map((line) => {
    const match = line.match(LIST_LINE);
    const box = match?.[1] ?? "";
    return { text: (match?.[2] ?? line).trim(), done: /[xX✓]/.test(box) };
  }).filter((item) => item.text.length > 0);
}

/** The first `count` sentences of a text, on one line. */
export function sentences(text: string, count: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const parts = flat.match(/[^.!?。！？]+[.!?。！？]+["”’)]*|[^.!?。！？]+$/g) ?? [flat];
  return parts.slice(0, count).map((p) => p.trim()).join(" ");
}

/** A string cut to `max` characters (code points) with an ellipsis. */
export function clip(text: string, max: number): string {
  const cps = [...text];
  return cps.length <= max ? text : `${cps.slice(0, Math.max(0, max - 1)).join("").trimEnd()}…`;
}

/** A calendar date written in the text (`YYYY-MM-DD`), if any. */
export function findDate(text: string): string | undefined {
  const match = text.match(ISO_DATE);
  if (!match) return undefined;
  const date = new Date(`${match[0]}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== match[0]
    ? undefined
    : match[0];
}

/** A clock time written in the text, as `HH:MM`. */
export function findTime(text: string): string | undefined {
  const match = text.match(TIME);
  if (!match) return undefined;
  if (match[1] !== undefined) return `${match[1].padStart(2, "0")}:${match[2]}`;
  let hour = Number(match[3]) % 12;
  if (match[4].toLowerCase() === "pm") hour += 12;
  return `${String(hour).padStart(2, "0")}:00`;
}

/** A quotation and its attribution, when the text is one. */
export function asQuote(text: string): { quote: string; author?: string } | undefined {
  const trimmed = text.trim();
  if (!QUOTE_OPEN.test(trimmed)) return undefined;
  const match = trimmed.match(QUOTE_LINE);
  if (!match) return undefined;
  const quote = match[1].trim();
  if (!quote) return undefined;
  const author = match[2]?.trim();
  return author ? { quote, author } : { quote };
}

/** The kind of a raw item (CONTRACT.md kinds); pictures and no text is a photo. */
export function detectKind(title: string, text: string, pictures: number): SummaryKind {
  if (!text.trim()) return pictures > 0 ? "photo" : "note";
  if (asQuote(text)) return "quote";
  const items = listItems(text);
  const checkboxes = lines(text).filter((l) => CHECKBOX.test(l)).length;
  if (checkboxes > 0 || (items.length >= 2 && TODO_WORDS.test(`${title} ${text}`))) return "todo";
  const date = findDate(`${title} ${text}`);
  if (date && (findTime(text) || EVENT_WORDS.test(`${title} ${text}`) || text.length < 400)) {
    return "event";
  }
  if (findTime(text) && EVENT_WORDS.test(`${title} ${text}`)) return "event";
  if (items.length >= 3) return "todo";
  if (URL.test(text) || [...text].length > 600) return "reference";
  return "note";
}

const STOP_WORDS: Record<string, string[]> = {
  en: ["the", "and", "is", "to", "of", "a", "in", "for", "with", "on", "that", "it"],
  de: ["der", "die", "und", "das", "ist", "nicht", "zu", "mit", "ein", "für", "auf", "den"],
  fr: ["le", "la", "et", "les", "des", "est", "un", "une", "pour", "pas", "du", "avec"],
  es: ["el", "la", "y", "de", "que", "los", "las", "en", "un", "una", "para", "con"],
  it: ["il", "di", "che", "e", "la", "per", "un", "una", "non", "con", "sono", "gli"],
  nl: ["de", "het", "een", "en", "van", "ik", "te", "dat", "niet", "met", "voor", "op"],
};

/** A BCP 47 tag of the text's language: script first, then the most common small words. */
export function detectLanguage(text: string): string {
  if (/[\u3040-\u30ff]/.test(text)) return "ja";
  if (/[\uac00-\ud7af]/.test(text)) return "ko";
  if (/[\u4e00-\u9fff]/.test(text)) return "zh";
  if (/[\u0400-\u04ff]/.test(text)) return "ru";
  if (/[\u0600-\u06ff]/.test(text)) return "ar";
  if (/[\u0370-\u03ff]/.test(text)) return "el";
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  let best = "en";
  let bestScore = 0;
  for (const [language, stops] of Object.entries(STOP_WORDS)) {
    const set = new Set(stops);
    const score = words.filter((w) => set.has(w)).length;
    if (score > bestScore) {
      best = language;
      bestScore = score;
    }
  }
  return best;
}

/** Text without the ISO dates and clock times in it, spaces tidied. */
export function withoutDates(text: string): string {
  return text.replace(new RegExp(ISO_DATE.source, "g"), "")
    .replace(new RegExp(TIME.source, "gi"), "")
    .replace(/[ \t]{2,}/g, " ")
    // Prepositions left dangling ("on  at ,") go with them.
    .replace(/(?:\s+(?:at|on|am|um|le))+\s*(?=[,.;]|$)/gim, "")
    .replace(/\s+([,.;:!?])/g, "$1").replace(/([,;:])(?=[,;:.])/g, "")
    .trim();
}

/** A short title from a line: its first clause when the line is long, at most `max` characters. */
export function headOf(line: string, max: number): string {
  const clean = withoutDates(line).replace(/^[\s,;:.\-–—]+|[\s,;:\-–—]+$/g, "");
  if ([...clean].length > 40) {
    const head = clean.split(/\s*(?:[,;:]|\s[-–—]\s)\s*/)[0];
    if ([...head].length >= 3) return clip(head, max);
  }
  return clip(clean || line.trim(), max);
}

/** Up to `count` key points: the list items, else the sentences after the first. */
export function keyPoints(text: string, count: number): string[] {
  const items = listItems(text).map((i) => i.text);
  if (items.length) return items.slice(0, count).map((p) => clip(p, 200));
  const flat = text.replace(/\s+/g, " ").trim();
  const parts = flat.match(/[^.!?。！？]+[.!?。！？]+["”’)]*|[^.!?。！？]+$/g) ?? [];
  return parts.map((p) => p.trim()).filter((p) => p.length > 3).slice(0, count)
    .map((p) => clip(p, 200));
}

/**
 * A JSON value with every NUL character removed from its strings and keys: PostgreSQL cannot
 * store them in text or jsonb (docs/decisions.md), and a model may well produce one.
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === "string") return value.replaceAll("\u0000", "") as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k.replaceAll("\u0000", ""), withoutNul(v)]),
    ) as T;
  }
  return value;
}
