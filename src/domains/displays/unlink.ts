/**
 * A display that leaves its owner (unbind, account deletion, a re-pair claimed by someone else)
 * takes its log entries with it, so its next owner never reads the previous owner's. Built
 * before the devices service, which runs it on every unlink.
 */
import type { UnlinkReaction } from "../devices/service.ts";
import * as repo from "./repository.ts";

/** The displays domain's reaction to a device leaving its owner. */
export function forgetDisplayLogs(): UnlinkReaction {
  return {
    async inTransaction(trx, device) {
      await repo.deleteLogsOf(trx, device.id);
    },
    afterCommit: () => Promise.resolve(),
  };
}
