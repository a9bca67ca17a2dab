import { z } from "zod";

/**
 * An integer that must arrive as a JSON number. trpc-to-openapi switches on zod's coercion for
 * every number field of an input object, JSON bodies included, so a plain `z.number()` body field
 * takes `""`, `null`, `[]` as 0 and `true` as 1 (STACK.md). It coerces only fields whose type is
 * `number` after unwrapping optional/nullable/default; a single-member union is left alone.
 */
export function jsonInteger(check: (n: z.ZodNumber) => z.ZodNumber = (n) => n) {
  return z.union([check(z.number({ message: "must be an integer" }).int("must be an integer"))])
    .meta({
      // The document shows the integer itself, not a one-member `anyOf`.
      // zod-openapi's `override` key (typed here: its GlobalMeta augmentation targets `zod/v4`).
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        const [only] = (jsonSchema.anyOf ?? []) as object[];
        if (!only) return;
        delete jsonSchema.anyOf;
        Object.assign(jsonSchema, only);
      },
    });
}
