/** The wire shape of a display's button action (issue 24). */
import { z } from "zod";
import { BUTTON_ACTIONS } from "./service.ts";

export const buttonSchema = z.object({
  action: z.enum(BUTTON_ACTIONS).meta({
    description: "What a press does: `rewind` the previous push, `next` the following one, " +
      "`identify` a screen naming the display, `none` nothing",
  }),
}).meta({ id: "ButtonAction" });
