/** The sign-in providers' face (Google, Apple): the native Apple call and the browser flows. */
import type { AccountsService } from "../accounts/service.ts";
import type { Config } from "../config.ts";
import { defineDomain } from "../domain.ts";
import type { PatsService } from "../pats/service.ts";
import type { Db } from "../schema.ts";
import { OauthService } from "./service.ts";
import { appleCallback, googleCallback } from "./callbacks.ts";
import { oauthRouter } from "./router.ts";
import { appleStart, googleStart } from "./start.ts";

export const oauth = defineDomain({
  name: "oauth",
  router: oauthRouter,
  rawRoutes: [googleStart, googleCallback, appleStart, appleCallback],
  /** Sign-in reaches accounts and PATs through their services; `baseUrl` is known once listening. */
  build: ({ db, config, accounts, pats, baseUrl }: {
    db: Db;
    config: Config;
    accounts: AccountsService;
    pats: PatsService;
    baseUrl: () => string;
  }) => new OauthService(db, config, { accounts, pats }, baseUrl),
});
