/**
 * CONTRACT.md LOGIN_FAILURES_PER_IDENTIFIER / LOGIN_FAILURES_PER_IP: failed password checks
 * (login, account deletion, password change) are counted in the database; over either limit the
 * answer is 429 `{"error"}` with `Retry-After`, before any password is hashed.
 */
import { sql } from "kysely";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser, type Reply } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import type { TestServer } from "./helpers/server.ts";
import { uuidv7 } from "../src/infra/lib/ids.ts";
import { sourceOf } from "../src/domains/accounts/login_limiter.ts";

const suite = serverSuite("login limits");

const login = (api: Client, identifier: string, password: string) =>
  api.post("/auth/login", { body: { identifier, password } });

/** A 429 with `{"error"}` and a Retry-After of 1..max seconds; returns the seconds. */
function expectLimited(reply: Reply, maxSeconds: number): number {
  expectError(reply, 429);
  const retry = Number(reply.headers.get("retry-after"));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= maxSeconds, `Retry-After ${retry}`);
  return retry;
}

async function failures(server: TestServer, accountKey: string) {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM login_failures WHERE account_key = ${accountKey}`
    .execute(server.app.services.db);
  return rows[0].n;
}

/**
 * A login as if from `address`: the request goes to the server's handler with that remote
 * address (the server takes the address from the connection, and every test connects from
 * 127.0.0.1).
 */
async function loginFrom(
  server: TestServer,
  address: string,
  identifier: string,
  password: string,
): Promise<Reply> {
  const req = new Request(`${server.url}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ identifier, password }),
  });
  const info = {
    remoteAddr: { transport: "tcp", hostname: address, port: 40_000 },
    completed: Promise.resolve(),
  } as Deno.ServeHandlerInfo<Deno.NetAddr>;
  const res = await server.app.userHandler(req, info);
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text ? JSON.parse(text) : null,
    contentType: res.headers.get("content-type"),
  };
}

suite.test(
  "one address's failures never lock the owner out from another address",
  async (api, server) => {
    const user = await registerUser(api);
    const attacker = "203.0.113.7";
    for (let i = 0; i < 10; i++) {
      expectError(await loginFrom(server, attacker, user.user.username, "wrong pass"), 401);
    }
    // The attacker's address is refused for this account, even with the right password.
    expectLimited(await loginFrom(server, attacker, user.user.email, user.password), 15 * 60);
    // The owner, from their own address, signs in; a typo there is a plain 401.
    expectStatus(await login(api, user.user.email, user.password), 200);
    expectError(await login(api, user.user.email, "wrong pass"), 401);
    expectStatus(await login(api, user.user.username, user.password), 200);
    // So do account deletion's and password change's checks: the owner's source is not limited.
    expectStatus(
      await api.put("/auth/me", {
        token: user.accessToken,
        body: { password: "another password", currentPassword: user.password },
      }),
      200,
    );
  },
);

suite.test(
  "past the account's ceiling over every source, only sources without a failure get a check",
  async (api, server) => {
    const user = await registerUser(api);
    const key = `user:${user.user.id}`;
    // 99 failures from 99 addresses (a guesser spread wide), one short of the ceiling of 100.
    await server.app.services.db.insertInto("login_failures").values(
      Array.from(
        { length: 99 },
        (_, i) => ({ id: uuidv7(), account_key: key, ip: `198.51.100.${i}` }),
      ),
    ).execute();
    expectError(await loginFrom(server, "203.0.113.9", user.user.email, "wrong pass"), 401);
    // At the ceiling: every source that has failed for the account waits, right password or not.
    expectLimited(await loginFrom(server, "203.0.113.9", user.user.email, user.password), 15 * 60);
    expectLimited(await loginFrom(server, "198.51.100.5", user.user.email, user.password), 15 * 60);
    // A source without a failure still gets its check: the owner signs in.
    expectStatus(await loginFrom(server, "203.0.113.10", user.user.email, user.password), 200);
    // A fresh source gets one guess, no more.
    expectError(await loginFrom(server, "203.0.113.11", user.user.email, "wrong pass"), 401);
    expectLimited(await loginFrom(server, "203.0.113.11", user.user.email, user.password), 15 * 60);
    // An IPv6 host's whole /64 is one source.
    expectError(await loginFrom(server, "2001:db8:1:2::5", user.user.email, "wrong pass"), 401);
    expectLimited(
      await loginFrom(server, "2001:db8:1:2:aaaa::6", user.user.email, user.password),
      15 * 60,
    );
    expectStatus(await loginFrom(server, "2001:db8:1:3::1", user.user.email, user.password), 200);
    // The owner's address, unlimited by all of it.
    expectStatus(await login(api, user.user.email, user.password), 200);
  },
);

suite.test(
  "the 11th failed login for one account is 429 with Retry-After, before any hashing",
  async (api, server) => {
    const user = await registerUser(api);
    const other = await registerUser(api);
    for (let i = 0; i < 10; i++) expectError(await login(api, user.user.email, "wrong pass"), 401);
    expectLimited(await login(api, user.user.email, "wrong pass"), 15 * 60);
    // Refused before the password is looked at: the right one is refused the same way, by email
    // in any case and by username (the limit is the account's).
    expectLimited(await login(api, user.user.email.toUpperCase(), user.password), 15 * 60);
    expectLimited(await login(api, user.user.username, user.password), 15 * 60);
    // Nothing else is limited: another account logs in.
    expectStatus(await login(api, other.user.username, other.password), 200);
    // Refusals are not failures: ten rows, not thirteen.
    assert.equal(await failures(server, `user:${user.user.id}`), 10);
    // Over tRPC the same 429 and Retry-After.
    const res = await fetch(`${server.url}/trpc/accounts.login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ identifier: user.user.email, password: user.password }),
    });
    const text = await res.text();
    assert.equal(res.status, 429, text);
    assert.ok(Number(res.headers.get("retry-after")) >= 1);
    assert.equal(text.includes("stack"), false);
  },
);

suite.test("a 429 answers without hashing: quicker than a password check", async (api) => {
  const user = await registerUser(api);
  for (let i = 0; i < 10; i++) expectError(await login(api, user.user.email, "wrong pass"), 401);
  // A refused login is a few queries; a password check is an scrypt of ~100 ms. Compare the
  // fastest of several so that machine noise does not decide.
  const timed = async (identifier: string) => {
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const reply = await login(api, identifier, user.password);
      best = Math.min(best, performance.now() - started);
      expectLimited(reply, 15 * 60);
    }
    return best;
  };
  const refused = await timed(user.user.email);
  const other = await registerUser(api);
  const checked = await (async () => {
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expectStatus(await login(api, other.user.email, other.password), 200);
      best = Math.min(best, performance.now() - started);
    }
    return best;
  })();
  assert.ok(refused < checked, `refused ${refused} ms, checked ${checked} ms`);
});

suite.test("a successful login does not reset the count", async (api) => {
  const user = await registerUser(api);
  for (let i = 0; i < 6; i++) expectError(await login(api, user.user.email, "wrong pass"), 401);
  expectStatus(await login(api, user.user.email, user.password), 200);
  for (let i = 0; i < 4; i++) expectError(await login(api, user.user.email, "wrong pass"), 401);
  expectLimited(await login(api, user.user.email, user.password), 15 * 60);
});

suite.test("unknown identifiers are counted by their trimmed, lower-cased form", async (api) => {
  const name = `ghost${Date.now().toString(36)}@example.com`;
  const variants = [name, name.toUpperCase(), ` ${name} `];
  for (let i = 0; i < 10; i++) {
    expectError(await login(api, variants[i % variants.length], "whatever1"), 401);
  }
  expectLimited(await login(api, name.toUpperCase(), "whatever1"), 15 * 60);
});

suite.test(
  "failed checks of account deletion and password change count for the account",
  async (api, server) => {
    const user = await registerUser(api);
    const del = (password: string) =>
      api.delete("/auth/account", {
        token: user.accessToken,
        body: { confirm: true, password },
      });
    const change = (currentPassword: string) =>
      api.put("/auth/me", {
        token: user.accessToken,
        body: { password: "another password", currentPassword },
      });
    for (let i = 0; i < 5; i++) expectError(await del("wrong pass"), 401);
    for (let i = 0; i < 4; i++) expectError(await change("wrong pass"), 401);
    expectError(await login(api, user.user.email, "wrong pass"), 401);
    expectLimited(await del(user.password), 15 * 60);
    expectLimited(await change(user.password), 15 * 60);
    expectLimited(await login(api, user.user.email, user.password), 15 * 60);
    // Nothing was deleted or changed.
    expectStatus(await api.get("/auth/me", { token: user.accessToken }), 200);
    const row = await server.app.services.db.selectFrom("users").select("password_hash")
      .where("id", "=", user.user.id).executeTakeFirstOrThrow();
    assert.ok(row.password_hash);
    assert.equal(await failures(server, `user:${user.user.id}`), 10);
  },
);

suite.test(
  "concurrent failed logins never pass the limit (atomic counting)",
  async (api, server) => {
    const user = await registerUser(api);
    const replies = await Promise.all(
      Array.from({ length: 25 }, () => login(api, user.user.email, "wrong pass")),
    );
    const statuses = replies.map((r) => r.status);
    // The count is reserved before hashing under a lock: exactly the limit is checked.
    assertEquals(statuses.filter((s) => s === 401).length, 10, JSON.stringify(statuses));
    assertEquals(statuses.filter((s) => s === 429).length, 15, JSON.stringify(statuses));
    for (const r of replies.filter((r) => r.status === 429)) expectLimited(r, 15 * 60);
    assert.equal(await failures(server, `user:${user.user.id}`), 10);
  },
);

suite.test("failures older than the window no longer count", async (api, server) => {
  const user = await registerUser(api);
  const old = new Date(Date.now() - 16 * 60_000);
  for (let i = 0; i < 10; i++) {
    await server.app.services.db.insertInto("login_failures").values({
      id: uuidv7(),
      account_key: `user:${user.user.id}`,
      ip: "127.0.0.1",
      failed_at: old,
    }).execute();
  }
  expectStatus(await login(api, user.user.email, user.password), 200);
});

suite.end();

const ipSuite = serverSuite("login limits per IP", {
  LOGIN_FAILURES_PER_IP: "3",
  LOGIN_FAILURES_PER_IDENTIFIER: "50",
});

ipSuite.test("rows no window reaches are pruned", async (api, server) => {
  const db = server.app.services.db;
  const stale = uuidv7();
  await db.insertInto("login_failures").values({
    id: stale,
    account_key: "name:stale",
    ip: "192.0.2.1",
    failed_at: new Date(Date.now() - 60 * 60_000),
  }).execute();
  // The first password check of the process prunes.
  expectError(await login(api, "nobody-at-all", "whatever1"), 401);
  const left = await db.selectFrom("login_failures").select("id").where("id", "=", stale)
    .executeTakeFirst();
  assert.equal(left, undefined);
  await db.deleteFrom("login_failures").execute();
});

ipSuite.test("over the IP limit every account is refused, even with the right password", async (api) => {
  const user = await registerUser(api);
  for (let i = 0; i < 3; i++) {
    expectError(await login(api, `stranger${i}@example.com`, "whatever1"), 401);
  }
  const retry = expectLimited(await login(api, user.user.email, user.password), 60);
  assert.ok(retry <= 60);
});

ipSuite.end();

Deno.test("login limits: a source is an IPv4 address or an IPv6 address's /64", () => {
  const cases: Array<[string, string]> = [
    ["192.0.2.1", "192.0.2.1"],
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["::ffff:c000:201", "192.0.2.1"],
    ["0:0:0:0:0:ffff:192.0.2.1", "192.0.2.1"],
    ["2001:db8:aa:bb:1:2:3:4", "2001:db8:aa:bb::/64"],
    ["2001:DB8:AA:BB::9", "2001:db8:aa:bb::/64"],
    ["[2001:db8::1]", "2001:db8:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    // Not an address: counted as given.
    ["1::2:3:4:5:6:7:8", "1::2:3:4:5:6:7:8"],
    ["", ""],
  ];
  for (const [address, source] of cases) assertEquals(sourceOf(address), source, address);
});
