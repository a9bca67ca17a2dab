/** The devices domain's face (SPEC 3): an owner's devices, their state, commands and unbinding. */
import { defineDomain } from "../../domain.ts";
import { devicesRouter } from "./router.ts";
import { type DevicesDeps, DevicesService } from "./service.ts";

export const devices = defineDomain({
  name: "devices",
  router: devicesRouter,
  /** Reactions (`onUnlink`) arrive with its dependencies. */
  build: (deps: DevicesDeps) => new DevicesService(deps),
});
