import { assertEquals } from "../../../tests/helpers/assert.ts";
import {
  asQuote,
  clip,
  detectKind,
  detectLanguage,
  findDate,
  findTime,
  keyPoints,
  listItems,
  sentences,
} from "./heuristics.ts";

Deno.test("heuristics: kinds of notes", () => {
  assertEquals(detectKind("", "", 2), "photo");
  assertEquals(detectKind("", "- [ ] milk\n- [x] eggs", 0), "todo");
  assertEquals(detectKind("Shopping", "- milk\n- eggs", 0), "todo");
  assertEquals(detectKind("", "“Less is more.” — Mies van der Rohe", 0), "quote");
  assertEquals(detectKind("", "Dentist 2025-03-21 at 15:00", 0), "event");
  assertEquals(detectKind("", "Meeting with Anna at 10:30 in room 2", 0), "event");
  assertEquals(detectKind("", `Read later https://example.com/article`, 1), "reference");
  assertEquals(detectKind("", "x ".repeat(400), 0), "reference");
  assertEquals(detectKind("", "Remember to breathe.", 0), "note");
});

Deno.test("heuristics: lists, sentences, dates, times, quotes, clipping", () => {
  assertEquals(listItems("Intro\n- [ ] a\n* b\n1. c\n- [x] d"), [
    { text: "a", done: false },
    { text: "b", done: false },
    { text: "c", done: false },
    { text: "d", done: true },
  ]);
  assertEquals(sentences("One. Two! Three? Four.", 2), "One. Two!");
  assertEquals(findDate("due 2025-02-30 or 2025-03-01"), undefined);
  assertEquals(findDate("due 2025-03-01"), "2025-03-01");
  assertEquals([findTime("at 9:05"), findTime("at 3pm"), findTime("no")], [
    "09:05",
    "15:00",
    undefined,
  ]);
  assertEquals(asQuote('"Stay hungry." - Steve Jobs'), {
    quote: "Stay hungry.",
    author: "Steve Jobs",
  });
  assertEquals(asQuote("Not a quote"), undefined);
  assertEquals(clip("abcdef", 4), "abc…");
  assertEquals(clip("😀😀😀", 3), "😀😀😀");
  assertEquals(keyPoints("A first one. A second one.", 5), ["A first one.", "A second one."]);
});

Deno.test("heuristics: languages by script and small words", () => {
  assertEquals(detectLanguage("Der Hund und die Katze sind nicht hier"), "de");
  assertEquals(detectLanguage("The dog and the cat"), "en");
  assertEquals(detectLanguage("Le chat et les chiens pour une fois"), "fr");
  assertEquals(detectLanguage("今天去超市买牛奶"), "zh");
  assertEquals(detectLanguage("明日は雨です"), "ja");
});
