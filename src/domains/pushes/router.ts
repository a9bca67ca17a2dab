/** Push procedures (SPEC 4.5). `push/refresh` is declared before `push/{pushId}`. */
import { router } from "../../infra/trpc/init.ts";
import { confirmUpload } from "./confirm_upload.ts";
import { createUpload } from "./create_upload.ts";
import { getPush } from "./get_push.ts";
import { getPushById } from "./get_push_by_id.ts";
import { listPushes } from "./list_pushes.ts";
import { refreshPush } from "./refresh_push.ts";
import { setCurrentPush } from "./set_current_push.ts";

export const pushesRouter = router({
  getPush,
  refreshPush,
  getPushById,
  listPushes,
  setCurrentPush,
  createUpload,
  confirmUpload,
});
