/**
 * What a fetched link contributes to a Scene: the title and text of a web page or a text file.
 * Pure string work (no DOM, no scripts): the markup is only read, never run.
 */

/** A link's text as the model sees it. */
export interface LinkText {
  url: string;
  title: string;
  description: string;
  text: string;
}

/** Text of a page kept for the model. */
export const LINK_TEXT_LIMIT = 4000;

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  rsquo: "’",
  lsquo: "‘",
  rdquo: "”",
  ldquo: "“",
  copy: "©",
};

/** Decodes character references: named ones of the list above and every numeric one. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X"
        ? parseInt(ref.slice(2), 16)
        : parseInt(ref.slice(1), 10);
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : "\uFFFD";
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

const squeeze = (text: string) => text.replace(/\s+/g, " ").trim();

function metaContent(html: string, names: string[]): string {
  for (const tag of html.match(/<meta\b[^>]*>/gi) ?? []) {
    const key = tag.match(/\b(?:name|property)\s*=\s*["']?([^"'\s>]+)/i)?.[1]?.toLowerCase();
    if (key && names.includes(key)) {
      const content = tag.match(/\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i);
      const value = content?.[1] ?? content?.[2] ?? content?.[3];
      if (value) return squeeze(decodeEntities(value));
    }
  }
  return "";
}

/** Title, description and visible text of an HTML page. */
export function extractHtml(url: string, html: string): LinkText {
  const title = metaContent(html, ["og:title", "twitter:title"]) ||
    squeeze(decodeEntities(html.match(/<title\b[^>]*>([\s\S]*?)<\/title>/i)?.[1] ?? ""));
  const description = metaContent(html, ["description", "og:description"]);
  const body = html.match(/<body\b[^>]*>([\s\S]*)/i)?.[1] ?? html;
  const visible = body
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|noscript|template|svg|head|nav|footer)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<\/?(p|div|br|li|h[1-6]|tr|section|article|header)\b[^>]*>/gi, "\n")
    .replace(/<[^>]*>/g, " ");
  const text = decodeEntities(visible)
    .split("\n")
    .map(squeeze)
    .filter(Boolean)
    .join("\n");
  return {
    url,
    title: title.slice(0, 300),
    description: description.slice(0, 1000),
    text: text.slice(0, LINK_TEXT_LIMIT),
  };
}

/** A plain-text link: its first line is the title. */
export function extractPlain(url: string, text: string): LinkText {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return {
    url,
    title: (lines[0] ?? "").slice(0, 300),
    description: "",
    text: lines.join("\n").slice(0, LINK_TEXT_LIMIT),
  };
}

/** Decodes a body in its declared charset, UTF-8 when unknown; NUL characters dropped. */
export function decodeText(body: Uint8Array, charset: string | null): string {
  let text: string;
  try {
    text = new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    text = new TextDecoder("utf-8").decode(body);
  }
  return text.replaceAll("\u0000", "");
}
