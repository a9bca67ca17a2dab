/** Row-to-API mapping of the accounts domain: the only place rows become wire objects. */
import { z } from "zod";
import { timestamp } from "../../infra/lib/wire.ts";
import type { Selectable } from "kysely";
import type { SessionsTable, UsersTable } from "./tables.ts";

export const userSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  username: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
}).meta({ id: "User" });

export const sessionSchema = z.object({
  id: z.uuid(),
  userAgent: z.string(),
  ip: z.string(),
  createdAt: timestamp,
  lastUsedAt: timestamp,
}).meta({ id: "Session" });

export const oauthAccountSchema = z.object({
  provider: z.string(),
  providerUserId: z.string(),
  email: z.string(),
  linkedAt: timestamp,
}).meta({ id: "OauthAccount" });

/** The `subscription` object of `GET /auth/me` (SPEC 2.4). */
export const subscriptionSummarySchema = z.object({
  status: z.string(),
  plan: z.string().nullable(),
  interval: z.string().nullable(),
  currentPeriodEnd: timestamp.nullable(),
  cancelAtPeriodEnd: z.boolean(),
}).meta({ id: "SubscriptionSummary" });

export type SubscriptionSummary = z.infer<typeof subscriptionSummarySchema>;

export const tokenPairSchema = z.object({ accessToken: z.string(), refreshToken: z.string() });

export const authResultSchema = tokenPairSchema.extend({ user: userSchema })
  .meta({ id: "AuthResult" });

export const messageSchema = z.object({ message: z.string() }).meta({ id: "Message" });

export type UserView = z.infer<typeof userSchema>;

/** The public user object (SPEC 2.1). */
export function toUser(row: Selectable<UsersTable>): UserView {
  return {
    id: row.id,
    email: row.email,
    username: row.username,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** A session entry (SPEC 2.3). */
export function toSession(row: Selectable<SessionsTable>): z.infer<typeof sessionSchema> {
  return {
    id: row.id,
    userAgent: row.user_agent,
    ip: row.ip,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at.toISOString(),
  };
}

/** An identity-provider link as listed in `GET /auth/me` (the oauth domain makes it). */
export type OauthAccountView = z.infer<typeof oauthAccountSchema>;
