/** User-side display procedures (CONTRACT.md "Displays people already own"). */
import { router } from "../trpc/init.ts";
import { claimDisplay } from "./claim_display.ts";

export const displaysRouter = router({ claimDisplay });
