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

/*
 * Issue 25: the regexes of this file that look for a closing `>`, `-->` or `</script>` rescanned
 * the rest of the page from every opener that had none: quadratic, 27 s for 240 KB of `<a` and
 * hours for the 2 MiB the fetcher allows. Each step below gives what its regex gave on every
 * input (`extract_linear_test.ts`), in time linear in the page.
 */

/** The first match of the global, bounded `pattern` at or after `from`. */
function find(text: string, pattern: RegExp, from: number): RegExpExecArray | null {
  pattern.lastIndex = from;
  return pattern.exec(text);
}

/**
 * `text.replace(pattern, by)` for a global pattern that ends at `closer` (`<[^>]*>`,
 * `<!--[\s\S]*?-->`), run only up to the last `closer`: no match ends beyond it, and before it
 * each opener finds a closer (but for one overlapping the last, left a few characters to scan),
 * so no scan goes past the match it makes.
 */
function replaceClosed(text: string, pattern: RegExp, closer: string, by: string): string {
  const last = text.lastIndexOf(closer);
  if (last < 0) return text;
  const end = last + closer.length;
  return text.slice(0, end).replace(pattern, by) + text.slice(end);
}

/**
 * Just after the `>` of the first tag that `opener` starts, or -1 (`/<opener[^>]*>/`): when the
 * first opener has no `>` after it, no later one has either.
 */
function firstTagEnd(html: string, opener: RegExp): number {
  const open = find(html, opener, 0);
  const gt = open ? html.indexOf(">", open.index + open[0].length) : -1;
  return gt < 0 ? -1 : gt + 1;
}

const HIDDEN = ["script", "style", "noscript", "template", "svg", "head", "nav", "footer"];
const openerOf = (names: string[]) => new RegExp(`<(${names.join("|")})\\b`, "gi");

/**
 * Elements never shown, from their opening to their closing tag, replaced by a space:
 * `/<(script|…|footer)\b[\s\S]*?<\/\1\s*>/gi`. The next closing tag of each name is kept, and a
 * name with no closing tag after one of its openers is dropped from the search: no later
 * opener of it can close either. So each name's closing tags are searched once, forwards.
 */
function withoutHidden(text: string): string {
  let names = HIDDEN;
  let opener = openerOf(names);
  const closes = new Map<string, { pattern: RegExp; next?: RegExpExecArray | null }>(
    names.map((name) => [name, { pattern: new RegExp(`<\\/${name}\\s*>`, "gi") }]),
  );
  const parts: string[] = [];
  let from = 0; // copied up to here
  let search = 0;
  for (let open = find(text, opener, 0); open; open = find(text, opener, search)) {
    const name = open[1].toLowerCase();
    const after = open.index + open[0].length;
    const close = closes.get(name)!;
    if (close.next === undefined || (close.next && close.next.index < after)) {
      close.next = find(text, close.pattern, after);
    }
    if (close.next) {
      parts.push(text.slice(from, open.index), " ");
      from = search = close.next.index + close.next[0].length;
      continue;
    }
    names = names.filter((n) => n !== name);
    if (names.length === 0) break;
    opener = openerOf(names);
    search = open.index + 1;
  }
  parts.push(text.slice(from));
  return parts.join("");
}

function metaContent(html: string, names: string[]): string {
  const opener = /<meta\b/gi;
  let from = 0;
  for (let open = find(html, opener, 0); open; open = find(html, opener, from)) {
    const gt = html.indexOf(">", open.index + open[0].length);
    if (gt < 0) break; // nor does any later one close
    from = gt + 1;
    // One tag: these patterns rescan nothing beyond it, and each of its spaces at most twice.
    const tag = html.slice(open.index, gt + 1);
    const key = tag.match(/\b(?:name|property)\s*=\s*["']?([^"'\s>]+)/i)?.[1]?.toLowerCase();
    if (key && names.includes(key)) {
      const content = tag.match(/\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i);
      const value = content?.[1] ?? content?.[2] ?? content?.[3];
      if (value) return squeeze(decodeEntities(value));
    }
  }
  return "";
}

const BLOCKS = /<\/?(p|div|br|li|h[1-6]|tr|section|article|header)\b[^>]*>/gi;

/** The text between `<title …>` and `</title>`. */
function titleText(html: string): string {
  const start = firstTagEnd(html, /<title\b/gi);
  const close = start < 0 ? null : find(html, /<\/title>/gi, start);
  return close ? html.slice(start, close.index) : "";
}

/** Title, description and visible text of an HTML page (time linear in its length). */
export function extractHtml(url: string, html: string): LinkText {
  const title = metaContent(html, ["og:title", "twitter:title"]) ||
    squeeze(decodeEntities(titleText(html)));
  const description = metaContent(html, ["description", "og:description"]);
  const body = html.slice(Math.max(0, firstTagEnd(html, /<body\b/gi)));
  let visible = replaceClosed(body, /<!--[\s\S]*?-->/g, "-->", " ");
  visible = withoutHidden(visible);
  visible = replaceClosed(visible, BLOCKS, ">", "\n");
  visible = replaceClosed(visible, /<[^>]*>/g, ">", " ");
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
