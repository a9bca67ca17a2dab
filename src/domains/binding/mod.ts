/** The binding domain's face (SPEC 3.5): a device joins its owner by NFC or by code. */
import { defineDomain } from "../../domain.ts";
import type { DevicesService } from "../devices/service.ts";
import type { NfcKeyring } from "../factory/keys.ts";
import type { CredentialsService } from "../factory/credentials_service.ts";
import type { Db } from "../../schema.ts";
import { bindingRouter } from "./router.ts";
import { BindingService } from "./service.ts";

export const binding = defineDomain({
  name: "binding",
  router: bindingRouter,
  build: ({ db, keyring, devices, credentials }: {
    db: Db;
    keyring: NfcKeyring;
    /** The devices domain owns the owner columns (docs/decisions.md). */
    devices: DevicesService;
    /** The factory owns the credentials a proof is checked against. */
    credentials: Pick<CredentialsService, "stateOf">;
  }) => new BindingService(db, keyring, devices, credentials),
});
