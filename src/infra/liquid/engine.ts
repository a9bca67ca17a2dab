/**
 * The liquidjs engine behind TRMNL markup, with its limits. One per render, so the partials a
 * markup defines with `{% template %}` are that render's only "files".
 */
import { type FS, Liquid } from "liquidjs";
import { type FilterClock, registerTrmnlFilters } from "./filters.ts";
import { registerTemplateTag } from "./template_tag.ts";

/** Characters of markup one render parses (shared plus a view; a recipe's file is at most 1 MiB). */
export const PARSE_LIMIT = 2 * 1024 * 1024;
/**
 * Allocation units liquidjs counts (range items, strings joined, arrays built) in one render: a
 * recipe's lists are hundreds of items, a hostile `(1..1000000000)` is refused at once.
 */
export const MEMORY_LIMIT = 50_000_000;
/** Milliseconds one render may take by default (the render budget holds the page's 20 s). */
export const DEFAULT_DEADLINE_MS = 2_000;

/**
 * Partial renders one render may do: a partial per item of a long list fits, a template that
 * renders itself is stopped with a clear message before it exhausts the stack.
 */
export const PARTIAL_RENDERS_LIMIT = 1_000;

/**
 * The engine's only "file system": the partials the markup defines. Each render of a partial
 * reads it (no cache), so the reads are counted against `PARTIAL_RENDERS_LIMIT`.
 */
function partialsFs(partials: Record<string, string>): FS {
  let reads = 0;
  const read = (name: string) => {
    const body = Object.hasOwn(partials, name) ? partials[name] : undefined;
    if (body === undefined) throw new Error(`No template "${name}" is defined in the markup`);
    if (++reads > PARTIAL_RENDERS_LIMIT) {
      throw new Error(
        `Partials rendered more than ${PARTIAL_RENDERS_LIMIT} times (does a template render itself?)`,
      );
    }
    return body;
  };
  return {
    exists: (name) => Promise.resolve(Object.hasOwn(partials, name)),
    existsSync: (name) => Object.hasOwn(partials, name),
    readFile: (name) => Promise.resolve().then(() => read(name)),
    readFileSync: read,
    resolve: (_dir, file) => file,
    containsSync: () => true,
  };
}

/** A liquidjs engine speaking TRMNL's dialect, with the partials its markup defines. */
export function createTrmnlEngine(
  clock: FilterClock,
  deadlineMs = DEFAULT_DEADLINE_MS,
): { engine: Liquid; partials: Record<string, string> } {
  const partials: Record<string, string> = {};
  const engine = new Liquid({
    // In-memory partials only: liquidjs then never touches the disk.
    fs: partialsFs(partials),
    root: [""],
    relativeReference: false,
    extname: "",
    dynamicPartials: true,
    strictFilters: false,
    strictVariables: false,
    ownPropertyOnly: true,
    timezoneOffset: clock.timeZone,
    locale: clock.locale,
    parseLimit: PARSE_LIMIT,
    renderLimit: deadlineMs,
    memoryLimit: MEMORY_LIMIT,
    cache: false,
  });
  registerTrmnlFilters(engine, clock);
  registerTemplateTag(engine, partials);
  return { engine, partials };
}
