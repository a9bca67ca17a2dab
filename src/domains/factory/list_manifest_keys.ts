import { z } from "zod";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { manifestKeySchema } from "./views.ts";

/** GET /internal/factory/manifest-keys: public halves of the file signing keys. */
export const listManifestKeys = factoryProcedure("listManifestKeys")
  .meta(factoryMeta("GET", "/manifest-keys", "List manifest signing keys"))
  .input(z.void())
  .output(z.array(manifestKeySchema))
  .query(({ ctx }) => ctx.services.factory.files.manifestKeys());
