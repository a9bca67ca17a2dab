/** The personal access tokens domain's face. */
import { buildWith, defineDomain } from "../../face.ts";
import { patsRouter } from "./router.ts";
import { PatsService } from "./service.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { PatTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    pats: PatsService;
  }
}

export const pats = defineDomain({
  name: "pats",
  tags: {
    "personal-access-tokens":
      "Tokens for scripts and the SDK; managed with a user token (SPEC 4.3)",
  },
  router: patsRouter,
  build: buildWith([], ({ db, changes }) => ({ pats: new PatsService(db, changes) })),
});
