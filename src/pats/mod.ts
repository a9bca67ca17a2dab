/** The personal access tokens domain's face. */
import { defineDomain } from "../domain.ts";
import { patsRouter } from "./router.ts";

export const pats = defineDomain({ name: "pats", router: patsRouter });
