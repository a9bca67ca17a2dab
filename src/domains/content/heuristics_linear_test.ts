/**
 * Issue 25, finding 3: the offline model's heuristics run on the request loop over notes of up
 * to 20,000 characters, so their time must be linear in the note. A long run of spaces made
 * several of their regexes quadratic (2–6 s a note). Each scan must still give what its regex
 * gave.
 */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { assertFast } from "../../../tests/helpers/cpu_time.ts";
import { clip, headOf, listItems, trimChars, withoutDates } from "./heuristics.ts";
import { offlineSummarize } from "./offline_summary.ts";
import { chooseTemplate, type NoteForPush } from "./offline_variables.ts";
import { MAX_TEXT_CHARS } from "./service.ts";
import { summaryRequest } from "./summary_prompt.ts";
import type { SummaryContent } from "./views.ts";
import { seededRandom as random } from "../../../tests/helpers/random.ts";

/** An em space: `\s`, and not folded by `[ \t]{2,}` as plain spaces are. */
const EM = "\u2003";

/** A note of the largest size an upload takes: `head`, `fill` repeated, `tail`. */
function note(head: string, fill: string, tail: string): string {
  const count = Math.floor((MAX_TEXT_CHARS - head.length - tail.length) / fill.length);
  return head + fill.repeat(count) + tail;
}

/** Far under the seconds these notes took, far over a linear scan's time. */
const BUDGET_MS = 1000;

/** What the offline agent builds for `text` when its summary asks for `template`. */
function variables(text: string, template: string) {
  const summary = { kind: "note", suggestedTemplate: template, title: "T", keyPoints: [] };
  const item: NoteForPush = {
    id: "00000000-0000-7000-8000-000000000000",
    title: "T 2026-01-05",
    text,
    summary: summary as unknown as SummaryContent,
    pictures: [],
    createdAt: "2026-01-05T00:00:00.000Z",
  };
  return chooseTemplate(item);
}

/** The reproduction of the issue: 50 letters, 19,948 em spaces, `a,`. */
const REPORTED = note("a".repeat(50), EM, "a,");

Deno.test("heuristics: the note of issue 25 is summarised and pushed in well under a second", () => {
  assertEquals(REPORTED.length, MAX_TEXT_CHARS);
  assertFast("the summary", () => {
    offlineSummarize(summaryRequest({ title: null, text: REPORTED, pictures: [], templates: [] }));
  }, BUDGET_MS);
  for (const template of ["note", "checklist", "agenda", "reminder", "quote", "headline"]) {
    assertFast(template, () => variables(`2026-01-05 10:00 ${REPORTED}`, template), BUDGET_MS);
  }
});

const HOSTILE: Record<string, Array<[string, () => unknown]>> = {
  "trailing punctuation and spaces ([…]+$)": [
    ["headOf", () => headOf(REPORTED, 80)],
    ["agenda titles", () => variables(note("10:00 a", EM, "a,"), "agenda")],
    ["trimChars", () => trimChars(note("", ",", "a"), /,/, /,/)],
  ],
  "the first clause (\\s*(?:[,;:]|\\s[-–—]\\s))": [
    ["headOf", () => headOf(note("a".repeat(50), EM, "ab"), 80)],
    ["headOf, spaced dashes", () => headOf(note("a".repeat(50), `${EM}-`, "ab"), 80)],
  ],
  "dangling prepositions ((?:\\s+(?:at|on|…))+\\s*(?=[,.;]|$))": [
    ["a chain", () => withoutDates(note("x", " at", "x"))],
    ["a chain over lines", () => withoutDates(note("x", " on\n", "x"))],
    ["em spaces", () => withoutDates(note("x", EM, "x"))],
    ["line ends", () => withoutDates(note("x", "\n", "x"))],
  ],
  "spaces before punctuation (\\s+([,.;:!?]))": [
    ["em spaces", () => withoutDates(note("a", EM, "a"))],
    ["tabs and line ends", () => withoutDates(note("a", "\t\n", "a"))],
  ],
  "list lines (…(.+?)\\s*$)": [
    ["spaces inside", () => listItems(note("- a", EM, "b"))],
    ["spaces after the bullet", () => listItems(note("- ", EM, "a\u2028b"))],
    ["spaces after the box", () => listItems(note("1. [x]", EM, "a\rb"))],
    ["checklist", () => variables(note("- [ ] a", EM, "b"), "checklist")],
  ],
};

for (const [pattern, cases] of Object.entries(HOSTILE)) {
  Deno.test(`heuristics: 20,000 characters built against ${pattern} in well under a second`, () => {
    for (const [what, work] of cases) assertFast(what, work, BUDGET_MS);
  });
}

/** The heuristics as they were: the regexes whose results the scans must reproduce. */
const regex = {
  listItems(text: string) {
    const LIST_LINE = /^\s*(?:[-*•·–]\s+|\d{1,2}[.)]\s+)?(\[[ xX✓]?\]\s*)?(.+?)\s*$/;
    const BULLET = /^\s*(?:[-*•·–]|\d{1,2}[.)])\s+/;
    const CHECKBOX = /^\s*(?:[-*•]\s*)?\[[ xX✓]?\]/;
    const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    return lines.filter((l) => BULLET.test(l) || CHECKBOX.test(l)).map((line) => {
      const match = line.match(LIST_LINE);
      const box = match?.[1] ?? "";
      return { text: (match?.[2] ?? line).trim(), done: /[xX✓]/.test(box) };
    }).filter((item) => item.text.length > 0);
  },
  withoutDates(text: string) {
    return text.replace(/\b(\d{4})-(\d{2})-(\d{2})\b/g, "")
      .replace(/\b([01]?\d|2[0-3])[:.h]([0-5]\d)\b|\b(1[0-2]|0?[1-9])\s?(am|pm)\b/gi, "")
      .replace(/[ \t]{2,}/g, " ")
      .replace(/(?:\s+(?:at|on|am|um|le))+\s*(?=[,.;]|$)/gim, "")
      .replace(/\s+([,.;:!?])/g, "$1").replace(/([,;:])(?=[,;:.])/g, "")
      .trim();
  },
  headOf(line: string, max: number) {
    const clean = regex.withoutDates(line).replace(/^[\s,;:.\-–—]+|[\s,;:\-–—]+$/g, "");
    if ([...clean].length > 40) {
      const head = clean.split(/\s*(?:[,;:]|\s[-–—]\s)\s*/)[0];
      if ([...head].length >= 3) return clip(head, max);
    }
    return clip(clean || line.trim(), max);
  },
};

const PIECES = [
  " ",
  "  ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "\u2028",
  EM,
  "\u00a0",
  "at",
  "on",
  "AM",
  "um",
  "Le",
  "attic",
  "x",
  "X",
  "word",
  "é",
  ",",
  ".",
  ";",
  ":",
  "!",
  "?",
  "-",
  "–",
  "—",
  "*",
  "•",
  "·",
  "1",
  "1.",
  "12)",
  "123.",
  "[ ]",
  "[x]",
  "[✓]",
  "[]",
  "[",
  "]",
  "2026-01-05",
  "10:30",
  "3pm",
];

Deno.test("heuristics: the scans give what the regexes gave, on random notes", () => {
  const next = random(25);
  for (let i = 0; i < 20_000; i++) {
    const text = Array.from(
      { length: Math.floor(next() * 24) },
      () => PIECES[Math.floor(next() * PIECES.length)],
    ).join("");
    const label = JSON.stringify(text);
    assertEquals(listItems(text), regex.listItems(text), label);
    assertEquals(withoutDates(text), regex.withoutDates(text), label);
    assertEquals(headOf(text, 80), regex.headOf(text, 80), label);
    assertEquals(
      trimChars(text, /[\s\-–—:,*•]/, /[\s\-–—:,]/),
      text.replace(/^[\s\-–—:,*•]+|[\s\-–—:,]+$/g, ""),
      label,
    );
  }
});
