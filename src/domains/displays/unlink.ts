/**
 * A display that leaves its owner (unbind, account deletion, a re-pair claimed by someone else)
 * takes its log entries with it, so its next owner never reads the previous owner's; one behind
 * a provider its feed token and sealed credentials. Built
 * before the devices service, which runs it on every unlink.
 */
import type { UnlinkReaction } from "../devices/service.ts";
import * as repo from "./repository.ts";
import { deleteProvider } from "./providers_repository.ts";

/** The displays domain's reaction to a device leaving its owner. */
export function forgetDisplayLogs(): UnlinkReaction {
  return {
    async inTransaction(trx, device) {
      await repo.deleteLogsOf(trx, device.id);
      // A display behind a provider: its feed URL stops and its credentials go.
      await deleteProvider(trx, device.id);
    },
    afterCommit: () => Promise.resolve(),
  };
}
