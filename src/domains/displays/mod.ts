/**
 * The displays domain's face (CONTRACT.md "Displays people already own", SPEC 9.6): displays
 * that poll with TRMNL's protocol (`/api/setup`, `/api/display`) and are claimed by a code. A
 * claimed display is a device of the devices domain; its pushes are the pushes domain's.
 */
import { defineDomain } from "../../domain.ts";
import { displayImage } from "./image.ts";
import { displayPoll } from "./poll.ts";
import { displayLog } from "./post_log.ts";
import { displaysRouter } from "./router.ts";
import { type DisplaysDeps, DisplaysService } from "./service.ts";
import { displaySetup } from "./setup.ts";

export const displays = defineDomain({
  name: "displays",
  router: displaysRouter,
  rawRoutes: [displaySetup, displayPoll, displayLog, displayImage],
  build: (deps: DisplaysDeps) => new DisplaysService(deps),
});
