/** The accounts domain's face (SPEC 2.1, 4.1): sign-up, sessions, the profile, deletion. */
import type { Selectable } from "kysely";
import { buildWith, defineDomain } from "../../face.ts";
import type { Trx } from "../../schema.ts";
import { AccessTokens } from "./access_tokens.ts";
import { Authenticator } from "./authenticator_service.ts";
import type { Authenticate } from "../../caller.ts";
import { AccountDeletion, type AfterCommit } from "./deletion_service.ts";
import { deleteAccount } from "./delete_account.ts";
import { LoginLimiter } from "./login_limiter.ts";
import { accountsRouter } from "./router.ts";
import { AccountsService, type OauthLinksReader } from "./service.ts";
import type { UsersTable } from "./tables.ts";
import { versionedMe } from "./versioned_me.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { AccountTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    /** The one authentication check of every user endpoint. */
    auth: Authenticate;
    accounts: AccountsService;
    accountDeletion: AccountDeletion;
  }
}

declare module "../../face.ts" {
  interface Hooks {
    /**
     * SPEC 4.1, before an account is deleted, in this order: the identity providers'
     * authorizations are revoked, then live subscriptions cancelled. A failure aborts the
     * deletion (500).
     */
    revokeBeforeAccountDeletion: (user: Selectable<UsersTable>) => Promise<void>;
    cancelBeforeAccountDeletion: (user: Selectable<UsersTable>) => Promise<void>;
    /** SPEC 4.1: in the deleting transaction; may return what to do once it committed. */
    accountDeletion: (trx: Trx, userId: string) => Promise<AfterCommit | void>;
    /** SPEC 2.1: the sign-in providers linked to an account, shown by `GET /auth/me`. */
    accountLinks: OauthLinksReader;
  }
}

export const accounts = defineDomain({
  name: "accounts",
  tags: {
    accounts: "Registration, login, tokens, sessions and the account itself (SPEC 4.1)",
  },
  router: accountsRouter,
  versioned: (surface) => ({ me: versionedMe(surface) }),
  rawRoutes: [deleteAccount],
  /** `GET /auth/me` shows the billing summary (SPEC 2.1); a PAT authenticates through pats. */
  build: buildWith(["pats", "billing"], (context) => {
    const { db, config, secrets, changes, log, storage, services } = context;
    const tokens = new AccessTokens(secrets.jwtSecret, config.accessTokenTtlSeconds);
    const limiter = new LoginLimiter(db, config.loginFailures);
    const links = context.hooks("accountLinks");
    return {
      accounts: new AccountsService({
        db,
        tokens,
        limiter,
        subscriptionOf: (userId) => services.billing.summary(userId),
        linksOf: async (userId) => (await Promise.all(links.map((of) => of(userId)))).flat(),
        changes,
      }),
      auth: new Authenticator({ db, tokens, pats: services.pats, changes }),
      accountDeletion: new AccountDeletion({
        db,
        limiter,
        log,
        steps: {
          // Read when an account is deleted: the hooks' answers exist only after the builds.
          get before() {
            return [
              ...context.hooks("revokeBeforeAccountDeletion"),
              ...context.hooks("cancelBeforeAccountDeletion"),
            ];
          },
          inTransaction: context.hooks("accountDeletion"),
          // Stored objects go once the rows are gone: each domain names its prefixes.
          after: context.objectKeys.map((keys) => async (userId: string) => {
            for (const prefix of keys.userPrefixes(userId)) await storage.deletePrefix(prefix);
          }),
        },
      }),
    };
  }),
});
