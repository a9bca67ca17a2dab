/**
 * Template variables checked against the template's JSON Schema (draft 2020-12, Ajv). The API
 * calls this before a push or a preview (CONTRACT.md: variables that do not match the schema are
 * 400 naming the variable); the render worker calls it again before it renders.
 */
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";

/** The outcome: the variables with schema defaults filled in, or a message naming the variable. */
export type VariablesResult =
  | { ok: true; variables: Record<string, unknown> }
  | { ok: false; message: string };

/**
 * How deep a variable's value may nest (arrays and objects within it). The deepest shipped
 * template needs 2 (`events[0].title`); 32 leaves room for future schemas while keeping the
 * clone and the schema check far from the call stack's limit (docs/decisions.md).
 */
export const MAX_VARIABLE_DEPTH = 32;

/**
 * Whether `value` holds arrays or objects nested more than `limit` levels (a scalar is 0, `[]`
 * is 1). An explicit stack, not recursion: the input may be nested thousands of levels, and the
 * walk stops at the first level too deep, so it costs at most one visit per value.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Compiles template schemas; one per process is enough (compiling is the cost). Ajv loads here,
 * on first use (issue 26: ~15 MB loaded, ~25 MB with the shipped schemas compiled, held by every
 * process that never checks a variable).
 */
export async function createValidator(): Promise<Ajv2020> {
  const { Ajv2020 } = await import("ajv/dist/2020.js");
  // strict: a misspelt keyword in a template's schema fails at load, not silently at runtime.
  return new Ajv2020({ allErrors: false, strict: true, useDefaults: true });
}

/** `/items/0/text` → `items[0].text`: how a variable is named in a message. */
export function variableName(pointer: string): string {
  return pointer.split("/").slice(1).map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce(
      (name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part),
      "",
    );
}

/** One sentence-case message naming the variable of the first error. */
export function describeError(error: ErrorObject): string {
  const at = variableName(error.instancePath);
  const child = (name: string) => (at ? `${at}.${name}` : name);
  switch (error.keyword) {
    case "required":
      return `Variable ${child(String(error.params.missingProperty))} is required`;
    case "additionalProperties":
      return `Variable ${
        child(String(error.params.additionalProperty))
      } is not a variable of this template`;
    default:
      return at ? `Variable ${at} ${error.message}` : `Variables ${error.message}`;
  }
}

/**
 * Validates a copy of `variables` (defaults are written into the copy, never the caller's
 * object). Non-object input and a variable nested deeper than `MAX_VARIABLE_DEPTH` are refused
 * before the copy is made (issue 25: `structuredClone` overflowed the stack at ~5,000 levels).
 */
export function checkVariables(validate: ValidateFunction, variables: unknown): VariablesResult {
  if (typeof variables !== "object" || variables === null || Array.isArray(variables)) {
    return { ok: false, message: "Variables must be a JSON object" };
  }
  for (const [name, value] of Object.entries(variables)) {
    if (nestedDeeperThan(value, MAX_VARIABLE_DEPTH)) {
      return {
        ok: false,
        message: `Variable ${name} is nested deeper than ${MAX_VARIABLE_DEPTH} levels`,
      };
    }
  }
  const copy = structuredClone(variables) as Record<string, unknown>;
  if (validate(copy)) return { ok: true, variables: copy };
  const [first] = validate.errors ?? [];
  return { ok: false, message: first ? describeError(first) : "Variables are invalid" };
}
