/**
 * A take-over of an account by its email's verified owner (CONTRACT.md "Identity providers")
 * ends every session and clears the password under a row lock. Requests already in flight when
 * it commits (a password login between its hash check and its session insert, a PAT being
 * created, a password change) must not mint a credential that outlives it. Real concurrency
 * needs PostgreSQL: PGlite serialises every query, so there the race cannot happen at all.
 */
import { assert, assertEquals } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { externalDatabaseUrl, type TestServer } from "./helpers/server.ts";
import { serverSuite } from "./helpers/suite.ts";

const suite = serverSuite("take-over races");

/**
 * Holds the user row FOR UPDATE (as the take-over does), starts `request` while it is held,
 * then ends every session and clears the password and commits: the take-over's writes.
 */
async function takeOverDuring<T>(server: TestServer, userId: string, request: () => Promise<T>) {
  let pending!: Promise<T>;
  await server.app.services.db.transaction().execute(async (trx) => {
    await trx.selectFrom("users").select("id").where("id", "=", userId).forUpdate()
      .executeTakeFirst();
    pending = request();
    // Long enough for the request to read the user and check the password (~100 ms of scrypt).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await trx.deleteFrom("sessions").where("user_id", "=", userId).execute();
    await trx.updateTable("users").set({ password_hash: null }).where("id", "=", userId)
      .execute();
  });
  return await pending;
}

if (externalDatabaseUrl) {
  suite.test("a password login in flight during a take-over opens no session", async (api, s) => {
    const user = await registerUser(api);
    const reply = await takeOverDuring(
      s,
      user.user.id,
      () =>
        api.post("/auth/login", { body: { identifier: user.user.email, password: user.password } }),
    );
    assertEquals(reply.status, 401);
    const sessions = await s.app.services.db.selectFrom("sessions").select("id")
      .where("user_id", "=", user.user.id).execute();
    assertEquals(sessions.length, 0);
  });

  suite.test("a PAT created during a take-over is never stored", async (api, s) => {
    const user = await registerUser(api);
    const reply = await takeOverDuring(
      s,
      user.user.id,
      () =>
        api.post("/api/personal-access-tokens", {
          token: user.accessToken,
          body: { name: "squatter" },
        }),
    );
    assertEquals(reply.status, 401);
    const pats = await s.app.services.db.selectFrom("personal_access_tokens").select("id")
      .where("user_id", "=", user.user.id).execute();
    assertEquals(pats.length, 0);
  });

  suite.test("a password change during a take-over changes nothing", async (api, s) => {
    const user = await registerUser(api);
    const reply = await takeOverDuring(
      s,
      user.user.id,
      () =>
        api.put("/auth/me", {
          token: user.accessToken,
          body: { password: "a squatter's new password", currentPassword: user.password },
        }),
    );
    assertEquals(reply.status, 401);
    const row = await s.app.services.db.selectFrom("users").select("password_hash")
      .where("id", "=", user.user.id).executeTakeFirstOrThrow();
    assert.equal(row.password_hash, null);
  });
}

suite.end();
