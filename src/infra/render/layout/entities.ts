/** HTML character references: the named ones templates and escaped text produce, and numeric. */

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  ndash: "\u2013",
  mdash: "\u2014",
  hellip: "\u2026",
  lsquo: "\u2018",
  rsquo: "\u2019",
  ldquo: "\u201c",
  rdquo: "\u201d",
  laquo: "\u00ab",
  raquo: "\u00bb",
  bull: "\u2022",
  middot: "\u00b7",
  times: "\u00d7",
  deg: "\u00b0",
  copy: "\u00a9",
  reg: "\u00ae",
  trade: "\u2122",
  euro: "\u20ac",
  larr: "\u2190",
  rarr: "\u2192",
  check: "\u2713",
};

/**
 * Decodes `&name;`, `&#123;` and `&#x1F;` references. Unknown names stay as written, and code
 * points a string cannot hold (surrogates, beyond U+10FFFF, NUL) become U+FFFD, as in HTML.
 */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(
    /&(#[xX][0-9a-fA-F]{1,8}|#\d{1,10}|[A-Za-z]{2,8});/g,
    (whole, ref: string) => {
      if (ref[0] !== "#") return NAMED[ref] ?? whole;
      const code = ref[1] === "x" || ref[1] === "X"
        ? parseInt(ref.slice(2), 16)
        : parseInt(ref.slice(1), 10);
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\ufffd";
      return String.fromCodePoint(code);
    },
  );
}
