/**
 * Text heuristics of the offline model (CONTRACT.md: deterministic, no network): what kind of
 * note a text is, its first sentences, its list items, dates and times, its language. Pure
 * functions; the offline summary and the offline agent's template variables are built on them.
 */
import type { SummaryKind } from "./views.ts";

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

const SPACE = /\s/;
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/**
 * The checkbox and the text of a trimmed list line (`- x`, `* x`, `• x`, `1. x`, `[ ] x`,
 * `- [x] x`): what `/^\s*(?:[-*•·–]\s+|\d{1,2}[.)]\s+)?(\[[ xX✓]?\]\s*)?(.+?)\s*$/` captured,
 * trying the same prefixes in the same order, each in constant time. The regex retried its
 * lazy text at every character and its spaces at every length: quadratic over a long run of
 * spaces (issue 25).
 */
function listLine(line: string): [box: string | undefined, text: string] | undefined {
  const n = line.length;
  const spacesFrom = (i: number) => {
    while (i < n && SPACE.test(line[i])) i++;
    return i;
  };
  let lastBreak = -1;
  for (let i = 0; i < n; i++) if (LINE_BREAK.test(line[i])) lastBreak = i;
  // `(.+?)\s*$` from `s` of a trimmed line: some text and no line break (`.` matches none).
  const textAt = (s: number) => s < n && s > lastBreak;
  // Where a bullet or number may end, longest spaces first; 0 for none.
  const starts: number[] = [];
  const spacedFrom = (i: number) => {
    for (let end = spacesFrom(i); end > i; end--) starts.push(end);
  };
  if ("-*•·–".includes(line[0])) spacedFrom(1);
  else if (/\d/.test(line[0] ?? "")) {
    for (const digits of /\d/.test(line[1] ?? "") ? [2, 1] : [1]) {
      if (".)".includes(line[digits] ?? "x")) spacedFrom(digits + 1);
    }
  }
  starts.push(0);
  for (const b of starts) {
    if (line[b] === "[") {
      const shut = " xX✓".includes(line[b + 1] ?? "x") && line[b + 2] === "]"
        ? b + 3
        : line[b + 1] === "]"
        ? b + 2
        : -1;
      if (shut >= 0) {
        for (let s = spacesFrom(shut); s >= shut; s--) {
          if (textAt(s)) return [line.slice(b, s), line.slice(s)];
        }
      }
    }
    if (textAt(b)) return [undefined, line.slice(b)];
  }
  return undefined;
}

/** List items of a text: the lines that carry a bullet, number or checkbox (done when ticked). */
export function listItems(text: string): Array<{ text: string; done: boolean }> {
  return lines(text).filter((l) => BULLET.test(l) || CHECKBOX.test(l)).map((line) => {
    const match = listLine(line);
    const box = match?.[0] ?? "";
    return { text: (match?.[1] ?? line).trim(), done: /[xX✓]/.test(box) };
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

/**
 * `text` without the characters that `lead` matches at its start and `trail` at its end (each
 * a one-character class): `/^[…]+|[…]+$/g` in one pass. That regex tried its trailing run
 * from every character of a run of spaces inside the text: quadratic (issue 25).
 */
export function trimChars(text: string, lead: RegExp, trail: RegExp): string {
  let start = 0;
  let end = text.length;
  while (start < end && lead.test(text[start])) start++;
  while (end > start && trail.test(text[end - 1])) end--;
  return text.slice(start, end);
}

const PREPOSITION = /^(?:at|on|am|um|le)$/i;

/**
 * `text.replace(/(?:\s+(?:at|on|am|um|le))+\s*(?=[,.;]|$)/gim, "")` in one forward pass: the
 * prepositions left before a comma, full stop, semicolon or line end go. The regex rescanned
 * a run of spaces from each of its characters and a chain of prepositions from each of its
 * links (issue 25). Here a chain is read once: it matches up to its last link followed by
 * such an end, and when no link is, no chain starting inside it matches either.
 */
function withoutDanglingPrepositions(text: string): string {
  const n = text.length;
  const parts: string[] = [];
  let copied = 0;
  let start = 0;
  while (start < n) {
    if (!SPACE.test(text[start])) {
      start++;
      continue;
    }
    let end = -1; // where the match from `start` ends
    let run = start; // the run of spaces before the next link
    let linked = false;
    let after = run;
    for (;;) {
      while (after < n && SPACE.test(text[after])) after++;
      if (linked && (after === n || ",.;".includes(text[after]))) end = after;
      else if (linked) {
        // `\s*` gives back spaces down to the run's last line end, where `$` matches.
        for (let i = after - 1; i >= run; i--) {
          if (LINE_BREAK.test(text[i])) {
            end = i;
            break;
          }
        }
      }
      if (after === run || !PREPOSITION.test(text.slice(after, after + 2))) break;
      run = after = after + 2;
      linked = true;
    }
    if (end < 0) {
      start = after;
      continue;
    }
    parts.push(text.slice(copied, start));
    copied = start = end;
  }
  parts.push(text.slice(copied));
  return parts.join("");
}

/** Text without the ISO dates and clock times in it, spaces tidied. */
export function withoutDates(text: string): string {
  const tidied = text.replace(new RegExp(ISO_DATE.source, "g"), "")
    .replace(new RegExp(TIME.source, "gi"), "")
    .replace(/[ \t]{2,}/g, " ");
  // Prepositions left dangling ("on  at ,") go with them; then no space before punctuation
  // (each run of spaces looked at once, not from each of its characters).
  return withoutDanglingPrepositions(tidied)
    .replace(
      /\s+/g,
      (run, at: number, all: string) => /[,.;:!?]/.test(all.charAt(at + run.length)) ? "" : run,
    )
    .replace(/([,;:])(?=[,;:.])/g, "")
    .trim();
}

/** A short title from a line: its first clause when the line is long, at most `max` characters. */
export function headOf(line: string, max: number): string {
  const clean = trimChars(withoutDates(line), /[\s,;:.\-–—]/, /[\s,;:\-–—]/);
  if ([...clean].length > 40) {
    // Up to the first comma, semicolon, colon or spaced dash. A match never starts inside a run
    // of spaces (the run's start matches first), so `(?<!\s)` changes nothing but the time:
    // no run is rescanned from each of its characters.
    const cut = clean.search(/(?<!\s)\s*(?:[,;:]|\s[-–—]\s)/);
    const head = cut < 0 ? clean : clean.slice(0, cut);
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
