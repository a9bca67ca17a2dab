/** Row-to-API mapping of personal access tokens (SPEC 2.6). */
import { z } from "zod";
import { timestamp } from "../../infra/lib/wire.ts";
import type { Selectable } from "kysely";
import type { PersonalAccessTokensTable } from "./tables.ts";

export const patSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  lastFour: z.string(),
  createdAt: timestamp,
  lastUsedAt: timestamp.nullable(),
  expiresAt: timestamp.nullable(),
  revokedAt: timestamp.nullable(),
}).meta({ id: "PersonalAccessToken" });

export const createdPatSchema = patSchema.extend({ token: z.string() })
  .meta({ id: "CreatedPersonalAccessToken" });

/** The listed form; never carries the token. */
export function toPat(row: Selectable<PersonalAccessTokensTable>): z.infer<typeof patSchema> {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    lastFour: row.last_four,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}
