/**
 * HTML → satori element tree. satori takes `{type, props}` trees, not HTML strings, and
 * satori-html leaves `&amp;` literally (STACK.md: Templates), so templates' HTML goes through
 * this small parser: elements, attributes, entities, comments, void elements, a `<style>` sheet
 * of simple selectors, and HTML's whitespace collapsing.
 */
import {
  matchRules,
  parseDeclarations,
  parseStylesheet,
  type Style,
  type StyleRule,
} from "./css.ts";
import { decodeEntities } from "./entities.ts";

/** A node of the tree satori lays out. */
export interface LayoutNode {
  type: string;
  props: LayoutProps;
}

/** What a satori element carries: its style, children and, for `img`, the picture. */
export interface LayoutProps {
  style?: Style;
  children?: LayoutChild | LayoutChild[];
  src?: string;
  width?: number;
  height?: number;
}

/** An element or a run of text. */
export type LayoutChild = LayoutNode | string;

/** A parsed HTML element before styles are applied. */
export interface HtmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
}

/** An element or a run of (entity-decoded) text. */
export type HtmlNode = HtmlElement | string;

/** What an `<img>` becomes: a prepared picture of a known pixel size, or nothing. */
export interface ResolvedImage {
  src: string;
  width: number;
  height: number;
}

/** Options of the tree builder. */
export interface TreeOptions {
  /**
   * Turns an `<img src>` into a picture the renderer may embed. Anything it does not resolve is
   * dropped: the layout engine must never fetch a URL on a template's behalf.
   */
  resolveImage?: (
    src: string,
    box: { width?: number; height?: number; fit?: string },
  ) => ResolvedImage | undefined;
}

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);

/** Elements whose content is not markup. */
const RAW_TEXT = new Set(["style", "script", "title", "textarea"]);

/** Inline elements stay `span`s (satori flows them within text); everything else is a box. */
const INLINE = new Set(["span", "b", "strong", "i", "em", "u", "small", "code"]);

/** The defaults a browser gives these tags, as far as a 1-bit panel can show them. */
const TAG_STYLE: Record<string, Style> = {
  b: { fontWeight: 700 },
  strong: { fontWeight: 700 },
  u: { textDecoration: "underline" },
};

const ATTRIBUTE = /([^\s"'>\/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function parseAttributes(text: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const match of text.matchAll(ATTRIBUTE)) {
    const name = match[1].toLowerCase();
    if (name in attrs) continue; // HTML keeps the first of a repeated attribute
    attrs[name] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? "");
  }
  return attrs;
}

/**
 * Parses HTML into elements and text. Forgiving like a browser: an unmatched end tag is
 * ignored, unclosed elements end with their parent, `<!-- -->` and `<!DOCTYPE>` are skipped.
 */
export function parseHtml(html: string): HtmlNode[] {
  const root: HtmlElement = { tag: "#root", attrs: {}, children: [] };
  const stack: HtmlElement[] = [root];
  const top = () => stack[stack.length - 1];
  let at = 0;
  while (at < html.length) {
    const lt = html.indexOf("<", at);
    if (lt === -1 || lt > at) {
      const end = lt === -1 ? html.length : lt;
      top().children.push(decodeEntities(html.slice(at, end)));
      at = end;
      continue;
    }
    if (html.startsWith("<!--", at)) {
      const end = html.indexOf("-->", at + 4);
      at = end === -1 ? html.length : end + 3;
      continue;
    }
    const tag = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)((?:"[^"]*"|'[^']*'|[^'">])*)>/.exec(html.slice(at));
    if (!tag) {
      if (html[at + 1] === "!" || html[at + 1] === "?") {
        const end = html.indexOf(">", at);
        at = end === -1 ? html.length : end + 1;
      } else {
        top().children.push("<"); // a stray "<" is text, as in a browser
        at++;
      }
      continue;
    }
    at += tag[0].length;
    const name = tag[2].toLowerCase();
    if (tag[1]) {
      const open = stack.findLastIndex((e) => e.tag === name);
      if (open > 0) stack.length = open;
      continue;
    }
    const element: HtmlElement = { tag: name, attrs: parseAttributes(tag[3]), children: [] };
    top().children.push(element);
    if (RAW_TEXT.has(name)) {
      const close = html.toLowerCase().indexOf(`</${name}`, at);
      const end = close === -1 ? html.length : close;
      element.children.push(html.slice(at, end));
      const gt = close === -1 ? -1 : html.indexOf(">", close);
      at = gt === -1 ? html.length : gt + 1;
      continue;
    }
    if (!VOID.has(name) && !tag[3].trimEnd().endsWith("/")) stack.push(element);
  }
  return root.children;
}

function collectStyles(nodes: HtmlNode[], into: string[]): string[] {
  for (const node of nodes) {
    if (typeof node === "string") continue;
    if (node.tag === "style") into.push(node.children.join(""));
    else collectStyles(node.children, into);
  }
  return into;
}

interface Context {
  rules: StyleRule[];
  options: TreeOptions;
}

/** `white-space` decides whether runs of spaces and newlines are kept (it is inherited). */
function collapse(text: string, whiteSpace: string): string {
  if (whiteSpace === "pre" || whiteSpace === "pre-wrap") return text;
  if (whiteSpace === "pre-line") return text.replace(/[ \t\f\r]+/g, " ").replace(/ ?\n ?/g, "\n");
  return text.replace(/[ \t\n\f\r]+/g, " ");
}

function numberAttribute(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

function buildImage(element: HtmlElement, style: Style, context: Context): LayoutNode | undefined {
  const resolve = context.options.resolveImage;
  const src = element.attrs.src;
  if (!resolve || !src) return undefined;
  const width = numberAttribute(element.attrs.width) ??
    (typeof style.width === "number" ? style.width : undefined);
  const height = numberAttribute(element.attrs.height) ??
    (typeof style.height === "number" ? style.height : undefined);
  const fit = typeof style.objectFit === "string" ? style.objectFit : undefined;
  const image = resolve(src, { width, height, fit });
  if (!image) return undefined;
  // The picture is already cropped and sized to its box, so satori needs no objectFit.
  const { objectFit: _fit, ...rest } = style;
  return {
    type: "img",
    props: { src: image.src, width: image.width, height: image.height, style: rest },
  };
}

const isBlank = (child: LayoutChild | undefined) => typeof child === "string" && !child.trim();

function trimEnds(children: LayoutChild[]): void {
  while (isBlank(children[0])) children.shift();
  while (isBlank(children.at(-1))) children.pop();
  const first = children[0];
  if (typeof first === "string") children[0] = first.trimStart();
  const last = children.at(-1);
  if (typeof last === "string") children[children.length - 1] = last.trimEnd();
}

/** Text and inline elements flow together; whitespace between boxes is not content. */
const flows = (child: LayoutChild | undefined) =>
  typeof child === "string" || child?.type === "span";

function buildChildren(nodes: HtmlNode[], whiteSpace: string, context: Context): LayoutChild[] {
  const children: LayoutChild[] = [];
  let space = false;
  const append = (child: LayoutChild) => {
    // A run of whitespace between two inline things is one space (`<b>a</b> <i>b</i>`).
    if (space && flows(children.at(-1)) && flows(child)) children.push(" ");
    space = false;
    const last = children.at(-1);
    if (typeof child === "string" && typeof last === "string") {
      children[children.length - 1] = last + child;
    } else children.push(child);
  };
  for (const node of nodes) {
    if (typeof node === "string") {
      const text = collapse(node, whiteSpace);
      if (text.trim() === "" && !text.includes("\n")) {
        space ||= text.length > 0;
        continue;
      }
      append(text);
      continue;
    }
    const built = buildElement(node, whiteSpace, context);
    if (built) append(built);
  }
  // Leading and trailing spaces of a box are not shown (CSS 2 white-space processing).
  if (whiteSpace !== "pre" && whiteSpace !== "pre-wrap") trimEnds(children);
  return children;
}

function buildElement(
  element: HtmlElement,
  inheritedWhiteSpace: string,
  context: Context,
): LayoutNode | undefined {
  const { tag } = element;
  if (RAW_TEXT.has(tag) || tag === "head" || tag === "meta" || tag === "link") return undefined;
  const classes = (element.attrs.class ?? "").split(/\s+/).filter(Boolean);
  const style: Style = {
    ...TAG_STYLE[tag],
    ...matchRules(context.rules, tag, classes),
    ...parseDeclarations(element.attrs.style ?? ""),
  };
  if (style.display === "none") return undefined;
  if (tag === "img") return buildImage(element, { boxSizing: "border-box", ...style }, context);
  // Line breaks in text come from `white-space: pre-line`, which satori lays out itself.
  if (tag === "br") return undefined;
  const whiteSpace = typeof style.whiteSpace === "string" ? style.whiteSpace : inheritedWhiteSpace;
  const children = buildChildren(element.children, whiteSpace, context);
  const inline = INLINE.has(tag);
  // satori wants an explicit display on a box of several children, and aligns a single child
  // only with one; flex is what it lays out by default anyway.
  if (!inline && style.display === undefined) style.display = "flex";
  // Every box sizes border-box, the `* { box-sizing: border-box }` reset (STACK.md: satori).
  if (!inline && style.boxSizing === undefined) style.boxSizing = "border-box";
  const props: LayoutProps = { style };
  if (children.length === 1) props.children = children[0];
  else if (children.length > 1) props.children = children;
  return { type: inline ? "span" : "div", props };
}

/**
 * Parses a template's HTML into one satori tree: the top-level nodes become the children of
 * `root` (a box whose style the caller gives, usually the frame's size and font).
 */
export function htmlToTree(html: string, root: Style, options: TreeOptions = {}): LayoutNode {
  const nodes = parseHtml(html);
  const rules = collectStyles(nodes, []).flatMap(parseStylesheet);
  const body = (function find(list: HtmlNode[]): HtmlNode[] {
    for (const node of list) {
      if (typeof node === "string") continue;
      if (node.tag === "body") return node.children;
      if (node.tag === "html") return find(node.children);
    }
    return list;
  })(nodes);
  const children = buildChildren(body, "normal", { rules, options });
  const props: LayoutProps = { style: { display: "flex", boxSizing: "border-box", ...root } };
  if (children.length === 1) props.children = children[0];
  else if (children.length > 1) props.children = children;
  return { type: "div", props };
}
