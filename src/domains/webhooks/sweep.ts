/**
 * `device.offline` without a report: a device counts as online for 3 minutes after its last
 * report (CONTRACT.md "MQTT topics"), so silence is noticed by this sweep, once a minute across
 * processes (a pg-boss schedule). Each device it announces offline is re-read under the device's
 * row lock, like a report, so a report arriving at the same moment is never overtaken. The sweep
 * also deletes events (and their deliveries) older than a month.
 */
import type { Db, Trx } from "../../schema.ts";
import type { DeviceObservation } from "./events.ts";
import type { WebhooksService } from "./service.ts";

/** Devices looked at per sweep (the oldest announcements first). */
const PER_SWEEP = 500;
/** Expired events deleted per sweep (a minute's worth of a busy account and more). */
const PRUNED_PER_SWEEP = 1000;

export interface OfflineSweepDeps {
  db: Db;
  webhooks: WebhooksService;
  /** The device locked in `trx`, as a report would observe it; undefined when it is gone. */
  lockDevice(
    trx: Trx,
    deviceId: string,
  ): Promise<(Omit<DeviceObservation, "userId"> & { userId: string | null }) | undefined>;
}

export class OfflineSweep {
  constructor(private readonly deps: OfflineSweepDeps) {}

  async run(): Promise<void> {
    const { db, webhooks, lockDevice } = this.deps;
    for (const candidate of await webhooks.announcedOnline(PER_SWEEP)) {
      await db.transaction().execute(async (trx) => {
        const device = await lockDevice(trx, candidate.device_id);
        if (!device || device.userId !== candidate.user_id) {
          await webhooks.forgetDevice(trx, candidate.device_id);
          return;
        }
        if (device.online) return;
        await webhooks.observeDevice(trx, { ...device, userId: device.userId });
      });
    }
    // The same minute's schedule keeps the events table a month long.
    await webhooks.pruneEvents(PRUNED_PER_SWEEP);
  }
}
