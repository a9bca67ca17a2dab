/** The sign-in providers' face (Google, Apple): the native Apple call and the browser flows. */
import { defineDomain } from "../domain.ts";
import { appleCallback, googleCallback } from "./callbacks.ts";
import { oauthRouter } from "./router.ts";
import { appleStart, googleStart } from "./start.ts";

export const oauth = defineDomain({
  name: "oauth",
  router: oauthRouter,
  rawRoutes: [googleStart, googleCallback, appleStart, appleCallback],
});
