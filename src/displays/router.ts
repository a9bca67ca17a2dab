/** User-side display procedures (CONTRACT.md "Displays people already own"). */
import { router } from "../trpc/init.ts";
import { claimDisplay } from "./claim_display.ts";
import { getDisplayProfile } from "./get_display_profile.ts";
import { listDisplayLogs } from "./list_display_logs.ts";
import { setDisplayProfile } from "./set_display_profile.ts";

export const displaysRouter = router({
  claimDisplay,
  getDisplayProfile,
  setDisplayProfile,
  listDisplayLogs,
});
