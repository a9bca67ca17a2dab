/** The sign-in providers' face (Google, Apple): the native Apple call and the browser flows. */
import { defineDomain } from "../../domain.ts";
import { type OauthDeps, OauthService } from "./service.ts";
import { appleCallback, googleCallback } from "./callbacks.ts";
import { oauthRouter } from "./router.ts";
import { appleStart, googleStart } from "./start.ts";

export const oauth = defineDomain({
  name: "oauth",
  router: oauthRouter,
  rawRoutes: [googleStart, googleCallback, appleStart, appleCallback],
  /** Sign-in reaches accounts and PATs through their services; `baseUrl` is known once listening. */
  build: (deps: OauthDeps) => new OauthService(deps),
});
