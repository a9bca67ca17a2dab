import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { deviceViewSchema } from "./views.ts";

/** GET /internal/factory/devices/{deviceId}: the DeviceView, proof masked. */
export const getDevice = factoryProcedure("getDevice")
  .meta(factoryMeta("GET", "/devices/{deviceId}", "Get a device", {
    400: "deviceId is not a UUID",
    404: "Device not found or outside the scope",
  }))
  .input(z.object({ deviceId: uuidParam }))
  .output(deviceViewSchema)
  .query(({ ctx, input }) => ctx.services.factory.registration.get(ctx.principal, input.deviceId));
