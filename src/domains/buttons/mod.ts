/** Button actions of pull displays (issue 24): the owner's choice, carried out at a poll. */
import { defineDomain } from "../../domain.ts";
import { router } from "../../infra/trpc/init.ts";
import { getButtonAction, setButtonAction } from "./procedures.ts";
import { ButtonActions, type ButtonDeps } from "./service.ts";

export const buttons = defineDomain({
  name: "buttons",
  router: router({ getButtonAction, setButtonAction }),
  build: (deps: ButtonDeps) => new ButtonActions(deps),
});
