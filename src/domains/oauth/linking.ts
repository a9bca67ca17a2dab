/**
 * Who a provider sign-in is (SPEC 4.2, CONTRACT.md "Identity providers"): the user linked to the
 * provider subject, else the account with the same verified email (linked now, and taken over
 * when it has a password), else a new account with a derived username.
 */
import type { Db } from "../../schema.ts";
import type { AccountsService, ClientInfo } from "../accounts/service.ts";
import type { PatsService } from "../pats/service.ts";
import { toUser } from "../accounts/views.ts";
import { AppError, unauthorized } from "../../errors.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
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

/** What signing in needs from the other domains. */
export interface LinkingDeps {
  db: Db;
  accounts: AccountsService;
  pats: PatsService;
}

/**
 * SPEC 4.2: a known provider subject signs its user in; otherwise an existing account with the
 * same email is linked; otherwise a new account with a derived username is made. CONTRACT.md:
 * none of it happens unless the provider marks the email verified.
 */
export async function signIn(deps: LinkingDeps, identity: Identity, info: ClientInfo) {
  const { db } = deps;
  const { provider, claims } = identity;
  // CONTRACT.md: an unverified email (claim missing, false or "false") never signs in or links.
  if (!emailVerified(claims)) throw unauthorized("The provider has not verified this email");
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
    userId = await linkByEmail(deps, identity, email);
  }
  const user = await deps.accounts.findUser(userId);
  if (!user || user.disabled_at) throw unauthorized("Account is not available");
  return { ...(await deps.accounts.openSession(user.id, info)), user: toUser(user) };
}

/** The link row for a first sign-in of this subject into `userId`. */
function newLink(identity: Identity, userId: string, email: string) {
  return {
    id: uuidv7(),
    user_id: userId,
    provider: identity.provider,
    provider_user_id: identity.claims.sub,
    email,
    provider_refresh_token: identity.refreshToken ?? null,
    provider_client_id: identity.refreshToken ? identity.clientId : null,
    display_name: identity.name ?? null,
  };
}

/**
 * Links a first-time subject to the account with its email, creating the account (no password)
 * when there is none. Returns the user the subject is linked to.
 */
async function linkByEmail(deps: LinkingDeps, identity: Identity, email: string) {
  const { db, accounts } = deps;
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await accounts.findUserByEmail(email);
    if (existing) {
      const linked = await linkExisting(deps, identity, existing.id, email);
      if (linked) return linked;
      continue; // deleted meanwhile: the next round creates the account
    }
    let created: string;
    try {
      created = (await accounts.createUser({
        email,
        username: deriveUsername(email),
        passwordHash: null,
      })).id;
    } catch (error) {
      // A taken username (retry with a new suffix) or a concurrent sign-up of the same email
      // (the next round finds it).
      if (!(error instanceof AppError && error.code === "conflict")) throw error;
      continue;
    }
    const inserted = await repo.insertLink(db, newLink(identity, created, email));
    // A concurrent first sign-in of the same subject linked it first: use that link.
    return inserted ? created : (await repo.findLink(db, identity.provider, identity.claims.sub))!
      .user_id;
  }
  throw new AppError("internal", "Could not create an account for this email");
}

/**
 * Links the subject into an existing account, in one transaction under the user's row lock.
 * CONTRACT.md: registration never verifies email, so when the account has a password the
 * verified owner takes it: every other session ends, every PAT is revoked and the password is
 * cleared; whoever registered someone else's email keeps no access. Returns the linked user's
 * id, or undefined when the account is gone.
 */
function linkExisting(deps: LinkingDeps, identity: Identity, userId: string, email: string) {
  return deps.db.transaction().execute(async (trx) => {
    const user = await deps.accounts.lockUser(trx, userId);
    if (!user) return undefined;
    // A disabled account is neither linked nor changed.
    if (user.disabled_at) throw unauthorized("Account is not available");
    const inserted = await repo.insertLink(trx, newLink(identity, userId, email));
    if (!inserted) {
      // A concurrent first sign-in of the same subject linked it first: use that link.
      return (await repo.findLink(trx, identity.provider, identity.claims.sub))!.user_id;
    }
    if (user.password_hash) {
      await deps.accounts.endSessionsAndClearPassword(trx, userId);
      await deps.pats.revokeAllOf(trx, userId);
    }
    return userId;
  });
}
