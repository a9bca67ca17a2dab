/**
 * What in a recipe's markup this engine does not know, found without rendering it: filters (TRMNL
 * prints the value unfiltered; so does this engine) and tags (a parse error here). Import warns
 * with these names so the user knows which part of a recipe will look different.
 */
import { Tokenizer, TokenKind } from "liquidjs";
import { createTrmnlEngine } from "./engine.ts";

/** Tag names that only close or continue a block. */
const CLOSERS = /^(end\w+|else|elsif|when)$/;
/** Blocks whose inside is text, not Liquid. */
const TEXT_BLOCKS: Record<string, string> = { raw: "endraw", comment: "endcomment" };

interface Used {
  filters: Set<string>;
  tags: Set<string>;
}

/** Filter names after each `|` of an expression, string literals taken out first. */
function filtersIn(expression: string, into: Set<string>): void {
  const bare = expression.replace(/"[^"]*"|'[^']*'/g, '""');
  for (const match of bare.matchAll(/\|\s*([A-Za-z_][\w-]*)/g)) into.add(match[1]);
}

function scan(markup: string, used: Used): void {
  let tokens;
  try {
    tokens = new Tokenizer(markup).readTopLevelTokens();
  } catch {
    return; // Markup that does not tokenize fails to render, which says so.
  }
  let skipUntil: string | undefined;
  for (const token of tokens) {
    const kind = (token as { kind: number }).kind;
    if (kind === TokenKind.Output) {
      if (!skipUntil) filtersIn((token as { content: string }).content, used.filters);
      continue;
    }
    if (kind !== TokenKind.Tag) continue;
    const { name, args } = token as unknown as { name: string; args: string };
    if (skipUntil) {
      if (name === skipUntil) skipUntil = undefined;
      continue;
    }
    if (TEXT_BLOCKS[name]) {
      skipUntil = TEXT_BLOCKS[name];
      continue;
    }
    const lines = name === "liquid" ? args.split("\n") : [`${name} ${args}`];
    for (const line of lines) {
      const [tag = "", ...rest] = line.trim().split(/\s+/);
      if (tag && !CLOSERS.test(tag)) used.tags.add(tag);
      filtersIn(rest.join(" "), used.filters);
    }
  }
}

function usedIn(markup: string): Used {
  const used: Used = { filters: new Set(), tags: new Set() };
  scan(markup, used);
  return used;
}

const known = createTrmnlEngine({ now: new Date(0), timeZone: "UTC", locale: "en" }).engine;

/** Names of the filters `markup` uses that this engine does not define, sorted. */
export function unknownFilters(markup: string): string[] {
  return [...usedIn(markup).filters].filter((name) => !(name in known.filters)).sort();
}

/** One warning per filter or tag of `markup` this engine does not know, naming it. */
export function compatibility(markup: string): string[] {
  const used = usedIn(markup);
  const tags = [...used.tags].filter((name) => !(name in known.tags) && name !== "#").sort();
  return [
    ...unknownFilters(markup).map((name) =>
      `Filter "${name}" is unknown here: its value is shown unfiltered`
    ),
    ...tags.map((name) => `Tag "${name}" is unknown here: the markup will not render`),
  ];
}
