/**
 * Firmware updates on the devices' side (issue 24): offers to displays (their poll) and MQTT
 * devices (a `firmware` command), and the owner's hold. The registry is the factory's.
 */
import { defineDomain } from "../../domain.ts";
import { router } from "../../infra/trpc/init.ts";
import { getFirmwareHold, setFirmwareHold } from "./hold.ts";
import { FirmwareUpdates, type FirmwareUpdatesDeps } from "./service.ts";

export const firmware = defineDomain({
  name: "firmware",
  router: router({ getFirmwareHold, setFirmwareHold }),
  build: (deps: FirmwareUpdatesDeps) => new FirmwareUpdates(deps),
});
