/** The binding domain's face (SPEC 3.5): a device joins its owner by NFC or by code. */
import { buildWith, defineDomain } from "../../face.ts";
import { bindingRouter } from "./router.ts";
import { BindingService } from "./service.ts";

declare module "../../services.ts" {
  interface Services {
    binding: BindingService;
  }
}

export const binding = defineDomain({
  name: "binding",
  router: bindingRouter,
  /**
   * Binding locks the device (devices owns the owner columns) and checks its credential (the
   * factory owns the credentials a proof is checked against), in one transaction.
   */
  build: buildWith(["devices", "factory"], ({ db, secrets, services }) => ({
    binding: new BindingService(db, secrets.nfc, services.devices, services.factory.credentials),
  })),
});
