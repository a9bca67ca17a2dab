/** Account and session procedures (SPEC 4.1). DELETE /auth/account is a raw route. */
import { router } from "../../infra/trpc/init.ts";
import { register } from "./register.ts";
import { login } from "./login.ts";
import { refresh } from "./refresh.ts";
import { logout } from "./logout.ts";
import { getMe } from "./get_me.ts";
import { updateMe } from "./update_me.ts";
import { listSessions } from "./list_sessions.ts";
import { deleteSession } from "./delete_session.ts";

export const accountsRouter = router({
  register,
  login,
  refresh,
  logout,
  getMe,
  updateMe,
  listSessions,
  deleteSession,
});
