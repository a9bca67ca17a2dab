/**
 * The embedded object store's HTTP face (infrastructure, not a domain): the signed upload and
 * download routes, and their OpenAPI tag. It sits in `src/domains.ts` only for their place in the
 * documents (no route's match depends on the list's order: `src/route_order_test.ts`).
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
