/** The devices domain's face (SPEC 3): an owner's devices, their state, commands and unbinding. */
import type { Trx } from "../../schema.ts";
import { buildWith, defineDomain } from "../../face.ts";
import { devicesRouter } from "./router.ts";
import {
  type DeviceRow,
  DevicesService,
  type ReportReaction,
  type UnlinkReaction,
} from "./service.ts";
import type { DeviceTransport } from "./transport.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { DeviceCommandTables, DeviceTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    devices: DevicesService;
  }
}

declare module "../../face.ts" {
  interface Hooks {
    /** SPEC 3.6 / 4.1: a device leaves its owner; what it had goes with it. */
    deviceUnlinked: UnlinkReaction;
    /** A report of an owned device (poll, heartbeat, state, status). */
    deviceReported: ReportReaction;
    /** An MQTT device reported its firmware version; failures are only logged. */
    firmwareReported: (device: DeviceRow) => Promise<unknown>;
    /** How devices of other transports are reached (displays: polling, providers). */
    deviceTransports: readonly DeviceTransport[];
  }
}

export const devices = defineDomain({
  name: "devices",
  tags: {
    devices: "The caller's devices: binding, state, nickname, commands (SPEC 4.5)",
  },
  router: devicesRouter,
  hooks: {
    // SPEC 4.1: a deleted account's devices are unlinked (claimable again) and told `unbound`.
    accountDeletion: ({ services }) => (trx: Trx, userId) =>
      services.devices.unlinkAllOf(trx, userId),
  },
  build: buildWith([], (context) => ({
    devices: new DevicesService({
      db: context.db,
      messenger: context.messenger,
      outbox: context.outbox,
      onUnlink: context.hooks("deviceUnlinked"),
      onReport: context.hooks("deviceReported"),
      onFirmwareReport: context.hooks("firmwareReported"),
      transports: context.hooks("deviceTransports"),
      log: context.log,
      changes: context.changes,
    }),
  })),
});
