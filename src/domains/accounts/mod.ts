/** The accounts domain's face (SPEC 2.1, 4.1): sign-up, sessions, the profile, deletion. */
import { defineDomain } from "../../domain.ts";
import { deleteAccount } from "./delete_account.ts";
import { accountsRouter } from "./router.ts";
import { versionedMe } from "./versioned_me.ts";

export const accounts = defineDomain({
  name: "accounts",
  router: accountsRouter,
  versioned: (surface) => ({ me: versionedMe(surface) }),
  rawRoutes: [deleteAccount],
});
