/** The personal access tokens domain's face. */
import type { ChangeFeed } from "../../infra/db/cache/feed.ts";
import { defineDomain } from "../../domain.ts";
import type { Db } from "../../schema.ts";
import { patsRouter } from "./router.ts";
import { PatsService } from "./service.ts";

export const pats = defineDomain({
  name: "pats",
  router: patsRouter,
  build: ({ db, changes }: { db: Db; changes: ChangeFeed }) => new PatsService(db, changes),
});
