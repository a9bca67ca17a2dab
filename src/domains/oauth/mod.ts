/** The sign-in providers' face (Google, Apple): the native Apple call and the browser flows. */
import { buildWith, defineDomain } from "../../face.ts";
import { OauthService } from "./service.ts";
import { appleCallback, googleCallback } from "./callbacks.ts";
import { linksReader } from "./links.ts";
import { oauthRouter } from "./router.ts";
import { appleStart, googleStart } from "./start.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { OauthTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    oauth: OauthService;
  }
}

export const oauth = defineDomain({
  name: "oauth",
  tags: {
    "identity-providers": "Sign-in with Google and Apple (SPEC 4.2)",
  },
  router: oauthRouter,
  rawRoutes: [googleStart, googleCallback, appleStart, appleCallback],
  hooks: {
    // SPEC 4.1: the Apple authorization is revoked before the account is deleted.
    revokeBeforeAccountDeletion: ({ services }) => (user) => services.oauth.revokeApple(user.id),
    // SPEC 2.1: `GET /auth/me` lists the account's provider links.
    accountLinks: ({ db }) => linksReader(db),
  },
  /** Sign-in reaches accounts and PATs through their services; `baseUrl` is known once listening. */
  build: buildWith(["accounts", "pats"], ({ db, config, services, publicBaseUrl }) => ({
    oauth: new OauthService({
      db,
      config,
      accounts: services.accounts,
      pats: services.pats,
      baseUrl: publicBaseUrl,
    }),
  })),
});
