/** Personal access token procedures (SPEC 4.3). */
import { router } from "../../infra/trpc/init.ts";
import { createPat } from "./create_pat.ts";
import { listPats } from "./list_pats.ts";
import { revokePat } from "./revoke_pat.ts";

export const patsRouter = router({ createPat, listPats, revokePat });
