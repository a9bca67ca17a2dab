/**
 * SPEC 3.6 / 4.1: a device that leaves its owner (unbind, account deletion) takes its pushes,
 * their file records, uploads (staged and confirmed copies) and stored bitmaps with it. Built before the devices service, which runs
 * it on every unlink.
 */
import type { UnlinkReaction } from "../devices/service.ts";
import * as fileKeys from "../files/keys.ts";
import * as files from "../files/repository.ts";
import { devicePrefixes } from "./keys.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import * as repo from "./repository.ts";

/** The pushes domain's reaction to a device leaving its owner. */
export function forgetDevicePushes(store: ObjectStore): UnlinkReaction {
  return {
    async inTransaction(trx, device) {
      await repo.deletePushesOfDevice(trx, device.id);
      await files.deleteFilesOfDevice(trx, device.id, device.ownerId);
    },
    async afterCommit(device) {
      const prefixes = [
        ...devicePrefixes(device.ownerId, device.id),
        ...fileKeys.scopePrefixes(device.ownerId, device.id),
      ];
      for (const prefix of prefixes) await store.deletePrefix(prefix);
    },
  };
}
