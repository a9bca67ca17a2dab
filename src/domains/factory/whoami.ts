import { z } from "zod";
import { principalView } from "./principals.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { principalSchema } from "./views.ts";

/** GET /internal/factory/whoami: the calling principal, without its token. */
export const whoami = factoryProcedure("whoami")
  .meta(factoryMeta("GET", "/whoami", "The calling principal"))
  .input(z.void())
  .output(principalSchema)
  .query(({ ctx }) => principalView(ctx.principal));
