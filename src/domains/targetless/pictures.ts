/**
 * The pictures a Scene may draw: only its owner's confirmed files (SPEC 2.11 "an owned asset file
 * id"). A `fileId` that is not a UUID, or names anyone else's or an unconfirmed file, draws
 * nothing; it never reaches a uuid column or another user's bytes.
 */
import * as files from "../files/repository.ts";
import { isUuid } from "../../infra/lib/ids.ts";
import type { TargetlessDeps } from "./deps.ts";

/** Distinct pictures one Scene render reads into memory, at most (renditions and previews). */
export const MAX_SCENE_PICTURES = 16;

/** Picture bytes by file id, read from the store; at most `max` distinct files are read. */
export async function ownedPictures(
  deps: Pick<TargetlessDeps, "db" | "store">,
  userId: string,
  ids: string[],
  max: number,
): Promise<Record<string, Uint8Array>> {
  const candidates = [...new Set(ids.filter(isUuid))].slice(0, max);
  const out: Record<string, Uint8Array> = {};
  for (const file of await files.findFilesOfUser(deps.db, userId, candidates)) {
    if (file.status !== "confirmed") continue;
    const bytes = await deps.store.get(file.object_key);
    if (bytes) out[file.id] = bytes;
  }
  return out;
}
