/** SPEC 4.1 account deletion: one transaction, devices unlinked not deleted, second call 404. */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { AccountDeletion, type DeletionSteps } from "../src/domains/accounts/deletion_service.ts";
import { LoginLimiter } from "../src/domains/accounts/login_limiter.ts";
import { AppError } from "../src/errors.ts";
import { silentLog } from "../src/infra/lib/log.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import type { TestServer } from "./helpers/server.ts";
import { decodeJwt } from "jose";
import { serverSuite } from "./helpers/suite.ts";
import { uuidv7 } from "../src/infra/lib/ids.ts";

const suite = serverSuite("account deletion");

suite.test("deletes the account with 204; the second call is 404", async (api) => {
  const user = await registerUser(api);
  const reply = await api.delete("/auth/account", {
    token: user.accessToken,
    body: { confirm: true, password: user.password },
  });
  assert.equal(reply.status, 204);
  assert.equal(reply.body, null);
  expectError(
    await api.delete("/auth/account", {
      token: user.accessToken,
      body: { confirm: true, password: user.password },
    }),
    404,
  );
  expectError(
    await api.post("/auth/login", {
      body: { identifier: user.user.email, password: user.password },
    }),
    401,
  );
  expectError(await api.post("/auth/refresh", { body: { refreshToken: user.refreshToken } }), 401);
  expectError(await api.get("/auth/me", { token: user.accessToken }), 401);
  // The email is free again.
  expectStatus(
    await api.post("/auth/register", {
      body: { email: user.user.email, username: user.user.username, password: "password123" },
    }),
    201,
  );
});

suite.test("confirm must be true and the body well formed (400)", async (api) => {
  const user = await registerUser(api);
  const del = (body: unknown) => api.delete("/auth/account", { token: user.accessToken, body });
  expectError(await del({ confirm: false, password: user.password }), 400);
  expectError(await del({ password: user.password }), 400);
  expectError(await del({ confirm: "true", password: user.password }), 400);
  expectError(
    await api.delete("/auth/account", {
      token: user.accessToken,
      raw: "{oops",
      headers: { "content-type": "application/json" },
    }),
    400,
  );
  expectStatus(await api.get("/auth/me", { token: user.accessToken }), 200);
});

suite.test("a wrong or missing password is 401 and deletes nothing", async (api) => {
  const user = await registerUser(api);
  expectError(
    await api.delete("/auth/account", {
      token: user.accessToken,
      body: { confirm: true, password: "wrong!!!" },
    }),
    401,
  );
  // However long, a wrong password is an incorrect password (401), not a malformed body.
  expectError(
    await api.delete("/auth/account", {
      token: user.accessToken,
      body: { confirm: true, password: "w".repeat(2000) },
    }),
    401,
  );
  expectError(
    await api.delete("/auth/account", { token: user.accessToken, body: { confirm: true } }),
    401,
  );
  expectError(
    await api.delete("/auth/account", { body: { confirm: true, password: user.password } }),
    401,
  );
  expectError(
    await api.delete("/auth/account", {
      token: "nonsense",
      body: { confirm: true, password: user.password },
    }),
    401,
  );
  expectStatus(await api.get("/auth/me", { token: user.accessToken }), 200);
});

suite.test("a user without a password may omit it", async (api, server) => {
  const user = await registerUser(api);
  await server.app.services.db.updateTable("users").set({ password_hash: null })
    .where("id", "=", user.user.id).execute();
  assert.equal(
    (await api.delete("/auth/account", { token: user.accessToken, body: { confirm: true } }))
      .status,
    204,
  );
});

suite.test(
  "sessions, PATs and links go; devices are unlinked, not deleted",
  async (api, server) => {
    const db = server.app.services.db;
    const user = await registerUser(api);
    const other = await registerUser(api);
    const pat = expectStatus(
      await api.post("/api/personal-access-tokens", {
        token: user.accessToken,
        body: { name: "x" },
      }),
      201,
    );
    const deviceId = uuidv7();
    const otherDeviceId = uuidv7();
    for (const [id, owner] of [[deviceId, user.user.id], [otherDeviceId, other.user.id]]) {
      await db.insertInto("devices").values({
        id,
        hw_id: id.replaceAll("-", ""),
        thing_name: `thing-${id}`,
        owner_id: owner,
        bound_at: new Date(),
      }).execute();
    }
    await db.insertInto("oauth_accounts").values({
      id: uuidv7(),
      user_id: user.user.id,
      provider: "google",
      provider_user_id: `g-${user.user.id}`,
    }).execute();

    expectStatus(
      await api.delete("/auth/account", {
        token: user.accessToken,
        body: { confirm: true, password: user.password },
      }),
      204,
    );
    for (
      const table of [
        "sessions",
        "refresh_tokens",
        "personal_access_tokens",
        "oauth_accounts",
      ] as const
    ) {
      const rows = await db.selectFrom(table).select("user_id").where("user_id", "=", user.user.id)
        .execute();
      assert.equal(rows.length, 0, `${table} still has rows`);
    }
    expectStatus(await api.get("/api/sdk/v1/me", { token: pat.token }), 401);
    const device = await db.selectFrom("devices").selectAll().where("id", "=", deviceId)
      .executeTakeFirstOrThrow();
    assert.equal(device.owner_id, null);
    assert.equal(device.bound_at, null);
    const untouched = await db.selectFrom("devices").selectAll().where("id", "=", otherDeviceId)
      .executeTakeFirstOrThrow();
    assert.equal(untouched.owner_id, other.user.id);
  },
);

/** The server's account deletion with extra steps, as another domain would contribute them. */
function deletionWith(server: TestServer, steps: DeletionSteps) {
  const { db, config } = server.app.services;
  const limiter = new LoginLimiter(db, config.loginFailures);
  return new AccountDeletion({ db, limiter, steps, log: silentLog });
}

suite.test(
  "a failing pre-deletion step (provider revocation) gives 500 and deletes nothing",
  async (api, server) => {
    const user = await registerUser(api);
    const deletion = deletionWith(server, {
      before: [() => Promise.reject(new Error("provider down"))],
    });
    const error = await deletion.delete(user.user.id, user.password, "127.0.0.1").catch((e) => e);
    assert.ok(error instanceof AppError);
    assertEquals(error.status, 500);
    expectStatus(await api.get("/auth/me", { token: user.accessToken }), 200);
  },
);

suite.test("a failing step inside the transaction rolls everything back", async (api, server) => {
  const user = await registerUser(api);
  const deletion = deletionWith(server, {
    inTransaction: [async (trx, userId) => {
      await trx.deleteFrom("sessions").where("user_id", "=", userId).execute();
      throw new Error("boom after a partial write");
    }],
  });
  const error = await deletion.delete(user.user.id, user.password, "127.0.0.1").catch((e) => e);
  assertEquals(error?.message, "boom after a partial write");
  expectStatus(await api.get("/auth/me", { token: user.accessToken }), 200);
});

/** The account row, or undefined once deleted. */
function userRow(server: TestServer, id: string) {
  return server.app.services.db.selectFrom("users").select("id").where("id", "=", id)
    .executeTakeFirst();
}

type Registered = Awaited<ReturnType<typeof registerUser>>;

/** Ways a session ends; each leaves `old` (an access token of the ended session) behind. */
const endings: Record<string, (api: Client, user: Registered) => Promise<{ password: string }>> = {
  async logout(api, user) {
    expectStatus(await api.post("/auth/logout", { token: user.accessToken, body: {} }), 200);
    return { password: user.password };
  },
  async "session deletion"(api, user) {
    const other = await login(api, user);
    const sessions = expectStatus(
      await api.get("/auth/sessions", { token: other.accessToken }),
      200,
    );
    const sid = decodeJwt(user.accessToken).sid as string;
    assert.ok(sessions.some((s: { id: string }) => s.id === sid));
    expectStatus(await api.delete(`/auth/sessions/${sid}`, { token: other.accessToken }), 200);
    return { password: user.password };
  },
  async "refresh-token reuse"(api, user) {
    expectStatus(
      await api.post("/auth/refresh", { body: { refreshToken: user.refreshToken } }),
      200,
    );
    expectError(
      await api.post("/auth/refresh", { body: { refreshToken: user.refreshToken } }),
      401,
    );
    return { password: user.password };
  },
  async "password change"(api, user) {
    const other = await login(api, user);
    const password = "a brand new password";
    expectStatus(
      await api.put("/auth/me", {
        token: other.accessToken,
        body: { password, currentPassword: user.password },
      }),
      200,
    );
    // The session that changed it is kept.
    expectStatus(await api.get("/auth/me", { token: other.accessToken }), 200);
    return { password };
  },
};

async function login(api: Client, user: Registered) {
  return expectStatus(
    await api.post("/auth/login", {
      body: { identifier: user.user.email, password: user.password },
    }),
    200,
  );
}

for (const [ending, end] of Object.entries(endings)) {
  suite.test(
    `after ${ending}, the old access token cannot delete the account (401)`,
    async (api, server) => {
      const user = await registerUser(api);
      const { password } = await end(api, user);
      // Still well signed and unexpired, but its session is gone: the shared session check
      // refuses it here as on every route (issue 16).
      for (const pw of [password, user.password]) {
        expectError(
          await api.delete("/auth/account", {
            token: user.accessToken,
            body: { confirm: true, password: pw },
          }),
          401,
        );
      }
      expectError(await api.get("/auth/me", { token: user.accessToken }), 401);
      assert.ok(await userRow(server, user.user.id), "the account must still exist");
      // The account's owner can still sign in with the current password.
      expectStatus(
        await api.post("/auth/login", { body: { identifier: user.user.email, password } }),
        200,
      );
    },
  );
}

suite.test(
  "a deleted user's other session token is 404 here, 401 elsewhere",
  async (api, server) => {
    const user = await registerUser(api);
    const other = await login(api, user);
    expectStatus(
      await api.delete("/auth/account", {
        token: user.accessToken,
        body: { confirm: true, password: user.password },
      }),
      204,
    );
    assert.equal(await userRow(server, user.user.id), undefined);
    expectError(
      await api.delete("/auth/account", {
        token: other.accessToken,
        body: { confirm: true, password: user.password },
      }),
      404,
    );
    expectError(await api.get("/auth/me", { token: other.accessToken }), 401);
    expectError(await api.get("/api/devices", { token: other.accessToken }), 401);
  },
);

suite.test("a PAT cannot delete the account (403); a revoked PAT is 401", async (api, server) => {
  const user = await registerUser(api);
  const create = () =>
    api.post("/api/personal-access-tokens", { token: user.accessToken, body: { name: "x" } });
  const pat = expectStatus(await create(), 201);
  const revoked = expectStatus(await create(), 201);
  expectStatus(
    await api.delete(`/api/personal-access-tokens/${revoked.id}`, { token: user.accessToken }),
    204,
  );
  const del = (token: string) =>
    api.delete("/auth/account", { token, body: { confirm: true, password: user.password } });
  expectError(await del(pat.token), 403);
  expectError(await del(revoked.token), 401);
  assert.ok(await userRow(server, user.user.id));
});

suite.end();
