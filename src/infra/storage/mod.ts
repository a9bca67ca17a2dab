/**
 * The embedded object store's HTTP face (infrastructure, not a domain): the signed upload and
 * download routes. It sits in `src/domains.ts` only for their place in the raw routes' order.
 */
import { defineDomain } from "../../face.ts";
import { storageDownload, storageUpload } from "./routes.ts";

export const storage = defineDomain({
  name: "storage",
  tags: {
    storage: "The embedded object store's signed uploads and downloads (SPEC 5.9)",
  },
  rawRoutes: [storageUpload, storageDownload],
});
