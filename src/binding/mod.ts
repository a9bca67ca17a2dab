/** The binding domain's face (SPEC 3.5): a device joins its owner by NFC or by code. */
import { defineDomain } from "../domain.ts";
import { bindingRouter } from "./router.ts";

export const binding = defineDomain({ name: "binding", router: bindingRouter });
