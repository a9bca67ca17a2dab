/** The targetless raw routes, on both surfaces (SPEC 4.7). */
import type { RawRoute } from "../http/raw.ts";
import { APP_SURFACE, SDK_SURFACE } from "../trpc/surfaces.ts";
import { previewScene } from "./preview_scene.ts";

export const targetlessRawRoutes: RawRoute[] = [
  previewScene(APP_SURFACE),
  previewScene(SDK_SURFACE),
];
