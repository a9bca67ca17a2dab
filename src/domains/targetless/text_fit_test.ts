import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { renderedLines } from "../../infra/render/testing/text_lines.ts";
import {
  balancedWidth,
  prepareText,
  textWidth,
  tidyText,
  wrapPrepared,
  wrapText,
} from "./text_fit.ts";

const CORPUS = [
  "Water the plants",
  "Hike around the lake on Saturday morning, then lunch at the hut.",
  "Water the plants on the balcony (the basil twice).\nCall the landlord about the heating.\n\n" +
  "Pick up the parcel at the post office before 18:00 on Friday.",
  "Supercalifragilisticexpialidocious-antidisestablishmentarianism is long",
  "周末计划：周六早上去湖边徒步，然后在小屋吃午饭。",
  "Mixed 中文 and English, with “quotes” — and dashes… ok?",
  "Ça déménage: élève, façade, Größe, Łódź, naïve café.",
  "https://en.wikipedia.org/wiki/Some_really_long_page_title_here",
  "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt " +
  "ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation.",
];

Deno.test("predicted line breaks never undercount the renderer's, and mostly match them", async () => {
  let same = 0;
  let total = 0;
  for (const text of CORPUS) {
    for (const width of [90, 142, 230, 330, 714]) {
      for (const size of [11, 17, 24, 44]) {
        for (const weight of [400, 700]) {
          const predicted = wrapText(text, width, size, weight === 700).length;
          const drawn = await renderedLines(text, width, size, weight);
          // More lines drawn than predicted would end the text in an ellipsis.
          assert.ok(
            drawn <= predicted,
            `${JSON.stringify(text)} at ${width} px, ${size}/${weight}: ${drawn} > ${predicted}`,
          );
          total++;
          if (drawn === predicted) same++;
        }
      }
    }
  }
  assert.ok(same / total > 0.95, `${same} of ${total} predictions exact`);
});

Deno.test("wrapping: newlines break, long words are cut, trailing spaces hang", () => {
  assertEquals(wrapText("a\n\nb", 500, 16), ["a", "", "b"]);
  assertEquals(wrapText("Water the plants", 1000, 20), ["Water the plants"]);
  const narrow = wrapText("Water the plants", textWidth("Water the", 20) + 1, 20);
  assertEquals(narrow, ["Water the", "plants"]);
  const cut = wrapText("abcdefghij", textWidth("abcde", 20) + 1, 20);
  assertEquals(cut, ["abcde", "fghij"]);
});

Deno.test("a balanced width keeps the line count, evens the lines and never cuts a word", () => {
  const text = "Hike around the lake on Saturday morning";
  const prepared = prepareText(text, true);
  const full = wrapPrepared(prepared, 400, 30);
  const width = balancedWidth(prepared, 400, 30);
  const balanced = wrapPrepared(prepared, width, 30);
  assertEquals(balanced.length, full.length);
  assert.ok(width < 400, `${width}`);
  const lengths = balanced.map((line) => textWidth(line, 30, true));
  assert.ok(Math.max(...lengths) - Math.min(...lengths) < 120, JSON.stringify(balanced));
  // "Weekend" never becomes "Weeken" + "d".
  const title = prepareText("Weekend plans", true);
  const lines = wrapPrepared(title, balancedWidth(title, 300, 46), 46);
  assertEquals(lines, ["Weekend", "plans"]);
});

Deno.test("tidying: runs of spaces, blank lines and edges", () => {
  assertEquals(tidyText("  a \t b \r\n\r\n\r\n\n c  "), "a b\n\nc");
});
