/** A device leaving its owner leaves its firmware hold behind (the owner's choice, not the next). */
import type { UnlinkReaction } from "../devices/service.ts";
import { clearHold } from "./repository.ts";

export function forgetFirmwareHold(): UnlinkReaction {
  return {
    inTransaction: (trx, device) => clearHold(trx, device.id),
    afterCommit: () => Promise.resolve(),
  };
}
