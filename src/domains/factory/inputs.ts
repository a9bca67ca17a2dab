/** Shared zod pieces of the factory procedures. */
import { z } from "zod";

/** `limit` (default and maximum per list) and `offset` query parameters. */
export function paging(defaultLimit: number, maxLimit: number) {
  return {
    limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
    offset: z.coerce.number().int().min(0).default(0),
  };
}

export const SERIAL = /^[A-Za-z0-9._:-]{1,64}$/;
