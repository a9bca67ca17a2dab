import { z } from "zod";
import { ANY_ROLE } from "./principals.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { manifestKeySchema } from "./views.ts";

/** GET /internal/factory/manifest-keys: public halves of the file signing keys. */
export const listManifestKeys = factoryProcedure(ANY_ROLE, "manifest_key.list")
  .meta(factoryMeta("GET", "/manifest-keys", "List manifest signing keys"))
  .input(z.void())
  .output(z.array(manifestKeySchema))
  .query(({ ctx }) => ctx.services.factory.credentials.manifestKeys());
