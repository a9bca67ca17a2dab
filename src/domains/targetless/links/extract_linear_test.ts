/**
 * Issue 25, finding 3: the extractor runs on the request loop over pages of up to 2 MiB, so its
 * time must be linear in the page. The regexes it used went quadratic from every unclosed `<`
 * (240 KB of `<a` took 27 s). Each scan must still give what its regex gave.
 */
import { assertEquals } from "../../../../tests/helpers/assert.ts";
import { assertFast } from "../../../../tests/helpers/cpu_time.ts";
import { decodeEntities, extractHtml, LINK_TEXT_LIMIT, type LinkText } from "./extract.ts";
import { LINK_MAX_BYTES } from "../../../infra/outbound/fetch_link.ts";
import { seededRandom as random } from "../../../../tests/helpers/random.ts";

/** A page of the largest size the fetcher lets through, `unit` repeated. */
function page(unit: string, prefix = ""): string {
  return (prefix + unit.repeat(Math.ceil(LINK_MAX_BYTES / unit.length))).slice(0, LINK_MAX_BYTES);
}

/** Far under the tens of seconds to hours these pages took, far over a linear scan's time. */
const BUDGET_MS = 1000;

const HOSTILE: Record<string, string[]> = {
  "tags (<[^>]*>)": [page("<a"), page("<"), page("< a b c ")],
  "block tags (<\\/?p\\b[^>]*>)": [page("<p"), page("</div "), page("<br")],
  "<title>": [page("<title>"), page("<title"), page("<TITLE x")],
  "<body>": [page("<body"), page("<body ")],
  "comments (<!--…-->)": [page("<!--"), page("<!---")],
  "hidden elements (<script>…</script>)": [
    page("<script>"),
    page("<svg "),
    page("<script><style><nav><head><footer><template><noscript>"),
    page("</script <script>"),
  ],
  "<meta>": [
    page("<meta"),
    page("<meta name "),
    page(" ", "<meta name="),
    page("x", `<meta name=description content="`),
    page("name content ", "<meta "),
  ],
  "entities and spaces": [page("&#x"), page("&a"), page("&#1"), page(" "), page("\n \t")],
};

for (const [pattern, pages] of Object.entries(HOSTILE)) {
  Deno.test(`extractor: 2 MiB built against ${pattern} in well under a second`, () => {
    for (const html of pages) {
      const what = `${JSON.stringify(html.slice(0, 24))}…`;
      assertFast(what, () => extractHtml("https://e.com/", html), BUDGET_MS);
    }
  });
}

/** The extractor as it was: the regexes whose results the scans must reproduce. */
function regexExtractHtml(url: string, html: string): LinkText {
  const squeeze = (text: string) => text.replace(/\s+/g, " ").trim();
  const metaContent = (names: string[]) => {
    for (const tag of html.match(/<meta\b[^>]*>/gi) ?? []) {
      const key = tag.match(/\b(?:name|property)\s*=\s*["']?([^"'\s>]+)/i)?.[1]?.toLowerCase();
      if (key && names.includes(key)) {
        const content = tag.match(/\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i);
        const value = content?.[1] ?? content?.[2] ?? content?.[3];
        if (value) return squeeze(decodeEntities(value));
      }
    }
    return "";
  };
  const title = metaContent(["og:title", "twitter:title"]) ||
    squeeze(decodeEntities(html.match(/<title\b[^>]*>([\s\S]*?)<\/title>/i)?.[1] ?? ""));
  const description = metaContent(["description", "og:description"]);
  const body = html.match(/<body\b[^>]*>([\s\S]*)/i)?.[1] ?? html;
  const visible = body
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|noscript|template|svg|head|nav|footer)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<\/?(p|div|br|li|h[1-6]|tr|section|article|header)\b[^>]*>/gi, "\n")
    .replace(/<[^>]*>/g, " ");
  const text = decodeEntities(visible).split("\n").map(squeeze).filter(Boolean).join("\n");
  return {
    url,
    title: title.slice(0, 300),
    description: description.slice(0, 1000),
    text: text.slice(0, LINK_TEXT_LIMIT),
  };
}

const PIECES = [
  "<",
  ">",
  "<a",
  "<a href='x'>",
  "</a>",
  "<p>",
  "</p>",
  "<P class=x>",
  "<pre>",
  "<br/>",
  "<div",
  "</div >",
  "<h1>",
  "<h7>",
  "<li>",
  "<tr>",
  "<section>",
  "<article>",
  "<header>",
  "<headx>",
  "<title>",
  "</title>",
  "<TITLE x>",
  "</Title>",
  "<body>",
  "<body class=b>",
  "<BODY",
  "<bodyx>",
  "<!--",
  "-->",
  "<!-->",
  "--",
  "<script>",
  "</script>",
  "</script >",
  "</SCRIPT>",
  "<script",
  "<style>",
  "</style>",
  "<svg",
  "</svg>",
  "<head>",
  "</head>",
  "<nav>",
  "</nav\n>",
  "<footer>",
  "</footer>",
  "<noscript>",
  "</noscript>",
  "<template>",
  "</template>",
  "<meta",
  `<meta name=description content="d &amp; e">`,
  "<meta property='og:title' content='T'>",
  `<meta name="og:title" content=x>`,
  `<meta content="c" name="twitter:title">`,
  "name=",
  "content=",
  '"',
  "'",
  "&amp;",
  "&#65;",
  "&lt;",
  "&",
  "x",
  "text",
  " ",
  "  ",
  "\n",
  "\t",
  "é",
  "\u00a0",
];

Deno.test("extractor: the scans give what the regexes gave, on random markup", () => {
  const next = random(25);
  for (let i = 0; i < 4000; i++) {
    const html = Array.from(
      { length: Math.floor(next() * 40) },
      () => PIECES[Math.floor(next() * PIECES.length)],
    ).join("");
    assertEquals(extractHtml("u", html), regexExtractHtml("u", html), JSON.stringify(html));
  }
});
