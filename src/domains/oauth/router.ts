/** Identity-provider procedures (SPEC 4.2); the redirect flows are raw routes. */
import { router } from "../../infra/trpc/init.ts";
import { appleNative } from "./apple_native.ts";

export const oauthRouter = router({ appleNative });
