/** A user's identity-provider links as `GET /auth/me` lists them: accounts shows, oauth owns. */
import type { Db } from "../../schema.ts";
import type { OauthLinksReader } from "../accounts/service.ts";
import * as repo from "./repository.ts";

/** The reader accounts is built with (`AccountsDeps.linksOf`). */
export function linksReader(db: Db): OauthLinksReader {
  return async (userId) =>
    (await repo.listLinks(db, userId)).map((row) => ({
      provider: row.provider,
      providerUserId: row.provider_user_id,
      email: row.email,
      linkedAt: row.linked_at.toISOString(),
    }));
}
