/** User-side display procedures (CONTRACT.md "Displays people already own"). */
import { router } from "../../infra/trpc/init.ts";
import { claimDisplay } from "./claim_display.ts";
import { createEnrollmentToken } from "./create_enrollment_token.ts";
import { createExternalDevice } from "./create_external_device.ts";
import { getDisplayProfile } from "./get_display_profile.ts";
import { listDisplayLogs } from "./list_display_logs.ts";
import { resetDisplay } from "./reset_display.ts";
import { rotateFeedToken } from "./rotate_feed_token.ts";
import { setDisplayProfile } from "./set_display_profile.ts";

export const displaysRouter = router({
  claimDisplay,
  createEnrollmentToken,
  getDisplayProfile,
  setDisplayProfile,
  listDisplayLogs,
  resetDisplay,
  createExternalDevice,
  rotateFeedToken,
});
