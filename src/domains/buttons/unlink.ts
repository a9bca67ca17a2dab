/** A display leaving its owner forgets its button action: the next owner starts from `none`. */
import type { UnlinkReaction } from "../devices/service.ts";
import { deleteAction } from "./repository.ts";

export function forgetButtonAction(): UnlinkReaction {
  return {
    inTransaction: (trx, device) => deleteAction(trx, device.id),
    afterCommit: () => Promise.resolve(),
  };
}
