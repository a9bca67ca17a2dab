/** User-side binding procedures (SPEC 4.5): NFC bind and the two retired claim-code endpoints. */
import { router } from "../../infra/trpc/init.ts";
import { bindNfc } from "./bind_nfc.ts";
import { bindCode, refreshCode } from "./retired.ts";

export const bindingRouter = router({ bindNfc, bindCode, refreshCode });
