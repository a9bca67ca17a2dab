/**
 * Text measure for the offline Scene layout: the line breaks the renderer will make, predicted
 * without the renderer. Advance widths are Noto Sans's own (the font every Scene is drawn in,
 * `render/layout/fonts.ts`) for ASCII, Latin-1 and Latin Extended-A; CJK takes one em (Noto Sans
 * SC); anything else a generous 0.7 em. Kerning is left out, which only ever narrows real text,
 * so a line predicted to fit always fits: the renderer makes at most the lines predicted here
 * (`text_fit_test.ts` checks this against the layout engine).
 */
import LineBreaker from "linebreak";
import { LINE_HEIGHT } from "../../infra/render/scene/tree.ts";

export { LINE_HEIGHT };

// Advance widths in thousandths of an em (units per em: 1000), from the Noto Sans 0.4.2 TTFs.
// U+0020..U+007E, then U+00A0..U+017F.
// deno-fmt-ignore
const ASCII_400 = [
  260, 269, 408, 646, 572, 831, 732, 225, 300, 300, 551, 572, 268, 322, 268, 372, 572, 572, 572,
  572, 572, 572, 572, 572, 572, 572, 268, 268, 572, 572, 572, 434, 899, 639, 650, 632, 730, 556,
  519, 728, 741, 339, 273, 619, 524, 907, 760, 781, 605, 781, 622, 549, 556, 731, 600, 930, 586,
  566, 572, 329, 372, 329, 572, 444, 281, 561, 615, 480, 615, 564, 344, 615, 618, 258, 258, 534,
  258, 935, 618, 605, 615, 615, 413, 479, 361, 618, 508, 786, 529, 510, 470, 380, 551, 380, 572,
];
// deno-fmt-ignore
const LATIN_400 = [
  260, 269, 572, 572, 572, 572, 551, 513, 580, 832, 357, 509, 572, 322, 832, 500, 428, 572, 350,
  350, 281, 623, 655, 268, 225, 350, 376, 509, 745, 771, 781, 434, 639, 639, 639, 639, 639, 639,
  881, 632, 556, 556, 556, 556, 339, 339, 339, 339, 730, 760, 781, 781, 781, 781, 781, 572, 781,
  731, 731, 731, 731, 566, 605, 631, 561, 561, 561, 561, 561, 561, 864, 480, 564, 564, 564, 564,
  258, 258, 258, 258, 605, 618, 605, 605, 605, 605, 605, 572, 605, 618, 618, 618, 618, 510, 615,
  510, 639, 561, 639, 561, 639, 561, 632, 480, 632, 480, 632, 480, 632, 480, 730, 615, 730, 617,
  556, 564, 556, 564, 556, 564, 556, 564, 556, 564, 728, 615, 728, 615, 728, 615, 728, 615, 741,
  618, 741, 618, 339, 258, 339, 258, 339, 258, 339, 258, 339, 258, 612, 516, 273, 258, 619, 534,
  534, 524, 258, 524, 258, 524, 258, 524, 268, 524, 258, 760, 618, 760, 618, 760, 618, 688, 760,
  618, 781, 605, 781, 605, 781, 605, 928, 946, 622, 413, 622, 413, 622, 413, 549, 479, 549, 479,
  549, 479, 549, 479, 556, 361, 556, 361, 556, 361, 731, 618, 731, 618, 731, 618, 731, 618, 731,
  618, 731, 618, 930, 786, 566, 510, 566, 572, 470, 572, 470, 572, 470, 326,
];
// deno-fmt-ignore
const ASCII_700 = [
  260, 282, 479, 646, 572, 902, 750, 266, 339, 339, 542, 572, 285, 320, 281, 415, 572, 572, 572,
  572, 572, 572, 572, 572, 572, 572, 281, 285, 572, 572, 572, 477, 898, 692, 665, 642, 732, 560,
  549, 724, 765, 389, 331, 664, 559, 943, 813, 791, 621, 791, 656, 551, 577, 756, 650, 967, 670,
  626, 579, 331, 415, 331, 572, 411, 365, 599, 632, 516, 632, 597, 387, 632, 650, 299, 298, 620,
  298, 975, 650, 625, 632, 632, 447, 502, 434, 650, 571, 856, 578, 571, 493, 394, 551, 394, 572,
];
// deno-fmt-ignore
const LATIN_700 = [
  260, 286, 572, 572, 568, 572, 551, 486, 593, 832, 381, 614, 572, 320, 832, 500, 424, 572, 379,
  380, 365, 653, 648, 281, 263, 380, 386, 614, 830, 874, 845, 477, 692, 692, 692, 692, 692, 692,
  952, 642, 560, 560, 560, 560, 389, 389, 389, 389, 732, 805, 791, 791, 791, 791, 791, 572, 791,
  756, 756, 756, 756, 626, 628, 704, 599, 599, 599, 599, 599, 599, 917, 516, 597, 597, 597, 597,
  299, 299, 299, 299, 627, 650, 625, 625, 625, 625, 625, 572, 619, 650, 650, 650, 650, 571, 632,
  571, 692, 599, 692, 599, 692, 599, 642, 516, 642, 516, 642, 516, 642, 516, 732, 632, 732, 645,
  560, 597, 560, 597, 560, 597, 560, 591, 560, 597, 724, 632, 724, 632, 724, 632, 724, 632, 765,
  650, 766, 657, 389, 299, 389, 299, 389, 299, 389, 299, 389, 299, 722, 610, 331, 298, 660, 620,
  620, 559, 298, 559, 298, 559, 298, 559, 369, 565, 305, 805, 650, 805, 650, 805, 650, 775, 813,
  650, 791, 625, 791, 625, 791, 625, 973, 978, 656, 447, 656, 447, 656, 447, 551, 502, 551, 502,
  551, 502, 551, 502, 577, 434, 577, 434, 577, 434, 756, 650, 756, 650, 756, 650, 756, 650, 756,
  650, 756, 650, 967, 862, 626, 571, 626, 579, 493, 579, 493, 579, 493, 383,
];
/** Punctuation notes use: dashes, quotes, ellipsis, bullet (the same in both weights or wider). */
const PUNCTUATION: Record<string, number> = {
  "\u2013": 500,
  "\u2014": 1000,
  "\u2018": 217,
  "\u2019": 217,
  "\u201c": 445,
  "\u201d": 445,
  "\u2026": 855,
  "\u2022": 376,
  "\u20ac": 572,
};

/** East Asian wide characters: one em in the CJK font. */
export function isWide(code: number): boolean {
  return (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0x1f000 && code <= 0x1faff) || (code >= 0x20000 && code <= 0x3fffd);
}

/** One character's advance in ems. */
function advance(char: string, bold: boolean): number {
  const code = char.codePointAt(0)!;
  // A newline is measured as the font's missing glyph; it hangs at the end of its line.
  if (code < 0x20) return 0.6;
  if (code >= 0x20 && code <= 0x7e) return (bold ? ASCII_700 : ASCII_400)[code - 0x20] / 1000;
  if (code >= 0xa0 && code <= 0x17f) return (bold ? LATIN_700 : LATIN_400)[code - 0xa0] / 1000;
  if (isWide(code)) return 1;
  return (PUNCTUATION[char] ?? 700) / 1000;
}

/** The width of `text` at `size` (no kerning: never narrower than drawn). */
export function textWidth(text: string, size: number, bold = false): number {
  let ems = 0;
  for (const char of text) ems += advance(char, bold);
  return ems * size;
}

/**
 * Tidies text for layout: tabs and runs of spaces become one space, lines are trimmed, and at
 * most one empty line separates paragraphs. The renderer keeps spaces (`pre-wrap`), so what is
 * measured is what it draws.
 */
export function tidyText(text: string): string {
  return text.replace(/\r\n?/g, "\n").split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
    .join("\n").replace(/\n{3,}/g, "\n\n").trim();
}

/** A word as the wrapper places it: its text, its width in ems, and that of its trailing spaces. */
interface Word {
  text: string;
  /** A newline comes before it. */
  required: boolean;
  ems: number;
  hanging: number;
}

/** Text prepared once for wrapping at many sizes and widths. */
export interface PreparedText {
  words: Word[];
  bold: boolean;
}

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

function word(text: string, required: boolean, bold: boolean): Word {
  const ems = textWidth(text, 1, bold);
  return { text, required, ems, hanging: ems - textWidth(text.trimEnd(), 1, bold) };
}

/** Cuts the text at its line break opportunities (UAX #14, the renderer's own segmentation). */
export function prepareText(text: string, bold = false): PreparedText {
  const breaker = new LineBreaker(text);
  const words: Word[] = [];
  let start = 0;
  let required = false;
  for (let next = breaker.nextBreak(); next; next = breaker.nextBreak()) {
    words.push(word(text.slice(start, next.position), required, bold));
    required = next.required;
    start = next.position;
  }
  return { words, bold };
}

/**
 * The lines the renderer makes of the text in `width`, by the renderer's algorithm (satori's, for
 * `white-space: pre-wrap; word-break: break-word`): words placed greedily, trailing spaces
 * hanging past the edge, a newline always breaking, and a word wider than the line starting a
 * new line, cut between characters.
 */
export function wrapPrepared(prepared: PreparedText, width: number, size: number): string[] {
  const words = prepared.words.slice();
  const lines: string[] = [];
  let line = "";
  let lineWidth = 0;
  for (let i = 0; i < words.length; i++) {
    const { text, required, ems, hanging } = words[i];
    const w = ems * size;
    const wraps = i > 0 && lineWidth + w > width + hanging * size;
    if (w > width && (lineWidth === 0 || wraps || required)) {
      const parts = Array.from(graphemes.segment(text), (g) => g.segment);
      if (parts.length > 1) {
        words.splice(i, 1, ...parts.map((p, j) => word(p, j === 0 && required, prepared.bold)));
        if (lineWidth > 0) {
          lines.push(line);
          line = "";
          lineWidth = 0;
        }
        i--;
        continue;
      }
    }
    if (i > 0 && (required || wraps)) {
      lines.push(line);
      line = text;
      lineWidth = w;
    } else {
      line += text;
      lineWidth += w;
    }
  }
  lines.push(line);
  return lines.map((l) => l.replace(/\s+$/, ""));
}

/** `wrapPrepared` for text used once. */
export function wrapText(text: string, width: number, size: number, bold = false): string[] {
  return wrapPrepared(prepareText(text, bold), width, size);
}

/** The widest of `lines`. */
export function widest(lines: string[], size: number, bold = false): number {
  return Math.max(0, ...lines.map((line) => textWidth(line, size, bold)));
}

/**
 * The narrowest width (at most `width`) that keeps the line count of `width`: lines of even
 * length, as a designer breaks a heading (CSS `text-wrap: balance`). Text of more than six
 * lines keeps `width`.
 */
export function balancedWidth(prepared: PreparedText, width: number, size: number): number {
  const count = wrapPrepared(prepared, width, size).length;
  // Balancing is for headings and short notes; a long text keeps its full measure.
  if (count > 6) return width;
  // Never narrower than its longest word: a balanced heading breaks between words only.
  const longest = Math.max(0, ...prepared.words.map((w) => (w.ems - w.hanging) * size));
  let lo = Math.min(width, Math.max(width / (count + 1), longest));
  let hi = width;
  for (let i = 0; i < 14 && hi - lo > 0.5; i++) {
    const mid = (lo + hi) / 2;
    if (wrapPrepared(prepared, mid, size).length > count) lo = mid;
    else hi = mid;
  }
  const lines = wrapPrepared(prepared, hi, size);
  return Math.min(width, Math.ceil(widest(lines, size, prepared.bold)));
}
