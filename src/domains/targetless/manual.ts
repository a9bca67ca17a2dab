/**
 * `mode=manual` (display-bound, CONTRACT.md "Targetless contents"): at confirm, the content's
 * image (or its text, laid out with the `note` template) becomes a push to the caller's device in
 * PREPARE, exactly like a custom push, and a display presentation that mirrors that push.
 */
import type { Selectable } from "kysely";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { CUSTOM_IMAGE_TEMPLATE } from "../pushes/service.ts";
import type { Trx } from "../../schema.ts";
import type { TargetlessDeps } from "./deps.ts";
import * as repo from "./repository.ts";
import type { TargetlessContentsTable } from "./tables.ts";

/** The push template that lays out text (templates/note). */
export const NOTE_TEMPLATE = "note";

/** The note template's limits (templates/note/schema.json). */
const NOTE_TITLE_MAX = 200;

/** Creates the push and the presentation mirroring it, in the confirming transaction. */
export async function createDisplayPresentation(
  trx: Trx,
  deps: TargetlessDeps,
  content: Selectable<TargetlessContentsTable>,
  imageKey: string | undefined,
) {
  const deviceId = content.display_id!;
  const image = content.assets.find((asset) => asset.type === "image");
  const body = content.assets.flatMap((asset) => asset.type === "text" ? [asset.text] : [])
    .join("\n\n");
  const title = Array.from(content.title).slice(0, NOTE_TITLE_MAX).join("");
  const push = await deps.pushes.create(
    image && imageKey
      ? {
        userId: content.user_id,
        deviceId,
        title: content.title,
        template: CUSTOM_IMAGE_TEMPLATE,
        params: { fileId: image.fileId },
        sourceKey: imageKey,
      }
      : {
        userId: content.user_id,
        deviceId,
        title: content.title,
        template: NOTE_TEMPLATE,
        params: title ? { title, body } : { body },
      },
    trx,
  );
  return await repo.insertPresentation(trx, {
    id: uuidv7(),
    user_id: content.user_id,
    kind: "display",
    mode: "manual",
    display_id: deviceId,
    push_id: push.id,
    state: "preparing",
    output: null,
    scene: null,
    failure: null,
  }, content.id);
}
