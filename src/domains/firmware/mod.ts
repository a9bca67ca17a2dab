/**
 * Firmware updates on the devices' side (issue 24): offers to displays (their poll) and MQTT
 * devices (a `firmware` command), and the owner's hold. The registry is the factory's.
 */
import { buildWith, defineDomain } from "../../face.ts";
import type { DeviceRow } from "../devices/service.ts";
import { router } from "../../infra/trpc/init.ts";
import { getFirmwareHold, setFirmwareHold } from "./hold.ts";
import { FirmwareUpdates, modelOf, type UpdatableDevice } from "./service.ts";
import { forgetFirmwareHold } from "./unlink.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { FirmwareUpdateTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    /** Firmware offers to displays and MQTT devices, and owners' holds (issue 24). */
    firmwareUpdates: FirmwareUpdates;
  }
}

/** An MQTT device as a firmware offer matches it: its version in a report, its `state.model`. */
function updatable(device: DeviceRow): UpdatableDevice {
  const state = device.state as Record<string, unknown> | null;
  return {
    id: device.id,
    thingName: device.thing_name,
    model: modelOf(state?.model),
    firmware: device.firmware,
  };
}

export const firmware = defineDomain({
  name: "firmware",
  router: router({ getFirmwareHold, setFirmwareHold }),
  hooks: {
    // A device that leaves its owner takes the owner's hold with it.
    deviceUnlinked: () => forgetFirmwareHold(),
    // An MQTT device reporting another version than its rollout's gets `firmware`.
    firmwareReported: ({ services }) => (device) =>
      services.firmwareUpdates.forMqtt(updatable(device)),
    // A display's poll: its model and version are the headers it reported; a display is claimed,
    // never provisioned by the factory (no batch, no SKU).
    displayFirmware: ({ services }) => (device, reported) =>
      services.firmwareUpdates.forDisplay({
        id: device.id,
        thingName: device.thing_name,
        batchId: null,
        sku: null,
        model: modelOf(reported.model),
        firmware: reported["fw-version"] ?? null,
      }),
  },
  /** The factory's registry says which build a device should run. */
  build: buildWith(["factory"], ({ db, storage, outbox, services }) => ({
    firmwareUpdates: new FirmwareUpdates({
      db,
      store: storage,
      outbox,
      offerFor: (device) => services.factory.firmware.offerFor(device),
    }),
  })),
});
