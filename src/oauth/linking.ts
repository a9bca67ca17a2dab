/**
 * Who a provider sign-in is (SPEC 4.2): the user linked to the provider subject, else the account
 * with the same verified email (linked now), else a new account with a derived username.
 */
import type { Db } from "../schema.ts";
import type { AccountsService, ClientInfo } from "../accounts/service.ts";
import { toUser } from "../accounts/views.ts";
import { AppError, unauthorized } from "../errors.ts";
import { uuidv7 } from "../lib/ids.ts";
import { emailVerified, type IdentityClaims, type ProviderName } from "./providers.ts";
import * as repo from "./repository.ts";
import { deriveUsername } from "./username.ts";

/** What a provider told us about the person signing in. */
export interface Identity {
  provider: ProviderName;
  claims: IdentityClaims;
  name?: string;
  refreshToken?: string;
  clientId: string;
}

/**
 * SPEC 4.2: a known provider subject signs its user in; otherwise an existing account with the
 * same (verified) email is linked; otherwise a new account with a derived username is made.
 */
export async function signIn(
  db: Db,
  accounts: AccountsService,
  identity: Identity,
  info: ClientInfo,
) {
  const { provider, claims } = identity;
  const email = typeof claims.email === "string" ? claims.email.trim() : "";
  const link = await repo.findLink(db, provider, claims.sub);
  let userId: string;
  if (link) {
    userId = link.user_id;
    const changes = {
      ...(email ? { email } : {}),
      // Apple sends the name only on first authorization: a later sign-in keeps the stored one.
      ...(identity.name ? { display_name: identity.name } : {}),
      ...(identity.refreshToken
        ? {
          provider_refresh_token: identity.refreshToken,
          provider_client_id: identity.clientId,
        }
        : {}),
    };
    if (Object.keys(changes).length) await repo.updateLink(db, link.id, changes);
  } else {
    if (!email) throw unauthorized("The identity token carries no email");
    // Linking on an unverified email would hand the account to whoever typed it.
    if (!emailVerified(claims)) throw unauthorized("The provider has not verified this email");
    userId = await userForEmail(db, accounts, email);
    const inserted = await repo.insertLink(db, {
      id: uuidv7(),
      user_id: userId,
      provider,
      provider_user_id: claims.sub,
      email,
      provider_refresh_token: identity.refreshToken ?? null,
      provider_client_id: identity.refreshToken ? identity.clientId : null,
      display_name: identity.name ?? null,
    });
    // A concurrent first sign-in of the same subject linked it first: use that link.
    if (!inserted) userId = (await repo.findLink(db, provider, claims.sub))!.user_id;
  }
  const user = await repo.findUser(db, userId);
  if (!user || user.disabled_at) throw unauthorized("Account is not available");
  return { ...(await accounts.openSession(user.id, info)), user: toUser(user) };
}

/** The id of the account with this email, creating it (no password) when there is none. */
async function userForEmail(db: Db, accounts: AccountsService, email: string): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await repo.findUserByEmail(db, email);
    if (existing) return existing.id;
    try {
      const user = await accounts.createUser({
        email,
        username: deriveUsername(email),
        passwordHash: null,
      });
      return user.id;
    } catch (error) {
      // A taken username (retry with a new suffix) or a concurrent sign-up of the same email
      // (the next round finds it).
      if (!(error instanceof AppError && error.code === "conflict")) throw error;
    }
  }
  throw new AppError("internal", "Could not create an account for this email");
}
