/** The devices domain's face (SPEC 3): an owner's devices, their state, commands and unbinding. */
import { defineDomain } from "../domain.ts";
import type { Db } from "../schema.ts";
import { devicesRouter } from "./router.ts";
import {
  type DeviceMessenger,
  type DeviceOutbox,
  type DevicesOptions,
  DevicesService,
} from "./service.ts";

export const devices = defineDomain({
  name: "devices",
  router: devicesRouter,
  /** Reactions (`onUnlink`) arrive with the options. */
  build: ({ db, messenger, outbox, ...options }: {
    db: Db;
    messenger: DeviceMessenger;
    outbox: DeviceOutbox;
  } & DevicesOptions) => new DevicesService(db, messenger, outbox, options),
});
