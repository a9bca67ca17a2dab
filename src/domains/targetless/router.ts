/**
 * The targetless procedures of one versioned surface (SPEC 4.7): written once, mounted on
 * `/api/app/v1` (user tokens) and `/api/sdk/v1` (PATs) by `src/router.ts`.
 */
import type { Surface } from "../../infra/trpc/surfaces.ts";
import { confirmContent } from "./confirm_content.ts";
import { createContent } from "./create_content.ts";
import { createRendition } from "./create_rendition.ts";
import { deliverPresentation } from "./deliver_presentation.ts";
import { getContent } from "./get_content.ts";
import { getPresentation } from "./get_presentation.ts";
import { listPresentations } from "./list_presentations.ts";

/** The procedures, keyed by name, for `router({...})`. */
export const targetlessProcedures = (surface: Surface) => ({
  createContent: createContent(surface),
  confirmContent: confirmContent(surface),
  getContent: getContent(surface),
  listPresentations: listPresentations(surface),
  getPresentation: getPresentation(surface),
  createRendition: createRendition(surface),
  deliverPresentation: deliverPresentation(surface),
});
