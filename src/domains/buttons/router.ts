/** Button procedures (issue 24): the owner reads and chooses a display's button action. */
import { router } from "../../infra/trpc/init.ts";
import { getButtonAction } from "./get_button_action.ts";
import { setButtonAction } from "./set_button_action.ts";

export const buttonsRouter = router({ getButtonAction, setButtonAction });
