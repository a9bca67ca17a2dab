/** The content pipeline's raw routes (a redirect and a PNG body), in match order. */
import type { RawRoute } from "../http/raw.ts";
import { downloadFile } from "./download_file.ts";
import { previewTemplate } from "./preview_template.ts";

export const contentRawRoutes: RawRoute[] = [downloadFile, previewTemplate];
