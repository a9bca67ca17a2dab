/**
 * The small CSS subset push templates use: inline `style` declarations and a `<style>` sheet of
 * simple selectors (`tag`, `.class`, `tag.class`, comma lists). Values become satori style
 * properties (camelCase names, unitless numbers as numbers).
 */

/** A satori style object. */
export type Style = Record<string, string | number>;

/** One stylesheet rule with its specificity (tag 1, class 10, as CSS counts them). */
export interface StyleRule {
  tag?: string;
  classes: string[];
  specificity: number;
  order: number;
  style: Style;
}

const NUMBER = /^-?(\d+\.?\d*|\.\d+)$/;

/** `-webkit-line-clamp` and `line-clamp` both mean satori's `lineClamp`. */
const ALIASES: Record<string, string> = { WebkitLineClamp: "lineClamp" };

function camelCase(name: string): string {
  // "-webkit-line-clamp" becomes "WebkitLineClamp", as React-style names spell vendor prefixes.
  const camel = name.trim().toLowerCase().replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  return ALIASES[camel] ?? camel;
}

/**
 * Parses `a: b; c: d` into a style object. Declarations that would make the renderer fetch
 * something (`url(...)`, in background images and the like) are dropped: a worker never reaches
 * the network on a template's behalf.
 */
export function parseDeclarations(text: string): Style {
  const style: Style = {};
  for (const part of text.split(";")) {
    const colon = part.indexOf(":");
    if (colon <= 0) continue;
    const name = part.slice(0, colon).trim();
    const value = part.slice(colon + 1).trim().replace(/\s*!important$/i, "");
    if (!name || !value || /url\s*\(/i.test(value) || /expression\s*\(/i.test(value)) continue;
    style[camelCase(name)] = NUMBER.test(value) ? Number(value) : value;
  }
  return style;
}

function parseSelector(text: string): { tag?: string; classes: string[] } | undefined {
  const match = /^([a-z][a-z0-9]*)?((?:\.[A-Za-z_][\w-]*)*)$/i.exec(text.trim());
  if (!match || (!match[1] && !match[2])) return undefined;
  const classes = match[2] ? match[2].slice(1).split(".") : [];
  return { tag: match[1]?.toLowerCase(), classes };
}

/**
 * Parses a stylesheet into rules. Selectors other than `tag`, `.class` and `tag.class` (and
 * at-rules) are skipped rather than guessed at.
 */
export function parseStylesheet(text: string): StyleRule[] {
  const rules: StyleRule[] = [];
  const source = text.replace(/\/\*[\s\S]*?\*\//g, "");
  let at = 0;
  while (at < source.length) {
    const open = source.indexOf("{", at);
    if (open === -1) break;
    const selectors = source.slice(at, open).trim();
    if (selectors.startsWith("@")) {
      // An at-rule block (@media, @font-face…) is skipped whole, nested rules included.
      let depth = 1;
      at = open + 1;
      while (at < source.length && depth > 0) {
        if (source[at] === "{") depth++;
        else if (source[at] === "}") depth--;
        at++;
      }
      continue;
    }
    const close = source.indexOf("}", open);
    const end = close === -1 ? source.length : close;
    const style = parseDeclarations(source.slice(open + 1, end));
    at = end + 1;
    for (const selectorText of selectors.split(",")) {
      const selector = parseSelector(selectorText);
      if (!selector) continue;
      rules.push({
        ...selector,
        specificity: (selector.tag ? 1 : 0) + 10 * selector.classes.length,
        order: rules.length,
        style,
      });
    }
  }
  return rules.sort((a, b) => a.specificity - b.specificity || a.order - b.order);
}

/** The style an element gets from the sheet, lowest specificity first, later rules winning. */
export function matchRules(rules: StyleRule[], tag: string, classes: string[]): Style {
  const style: Style = {};
  for (const rule of rules) {
    if (rule.tag && rule.tag !== tag) continue;
    if (!rule.classes.every((c) => classes.includes(c))) continue;
    Object.assign(style, rule.style);
  }
  return style;
}
