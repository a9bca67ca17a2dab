/**
 * CONTRACT.md: `/trpc` accepts a batch of at most 10 calls (a larger one is 400 before any call
 * runs) and never returns stack traces: not in batches nor single calls, queries nor mutations,
 * client errors nor internal ones, whatever NODE_ENV says.
 */
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { assert, assertEquals, expectError } from "./helpers/assert.ts";
import type { AppRouter } from "../src/router.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import type { TestServer } from "./helpers/server.ts";

const suite = serverSuite("trpc");

let n = 0;
const fresh = () => {
  const name = `batch${Date.now().toString(36)}${(n++).toString(36)}`;
  return { email: `${name}@example.com`, username: name, password: "correct horse battery" };
};

async function usersNamed(server: TestServer, emails: string[]) {
  return await server.app.services.db.selectFrom("users").select("email")
    .where("email", "in", emails).execute();
}

/** POSTs a batch of mutations; returns status and parsed body. */
async function batch(server: TestServer, path: string[], inputs: unknown[], token?: string) {
  const res = await fetch(`${server.url}/trpc/${path.join(",")}?batch=1`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(Object.fromEntries(inputs.map((v, i) => [String(i), v]))),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null, headers: res.headers };
}

suite.test("a batch of 11 calls is 400 and runs none of them; 10 run", async (_api, server) => {
  const eleven = Array.from({ length: 11 }, fresh);
  const refused = await batch(server, eleven.map(() => "accounts.register"), eleven);
  assert.equal(refused.status, 400, refused.text);
  assertEquals(Object.keys(refused.body), ["error"]);
  assert.match(refused.body.error, /11 calls.*10/);
  assertEquals(await usersNamed(server, eleven.map((u) => u.email)), []);
  // Also when the names are percent-encoded, and for GET batches of queries.
  const encoded = await fetch(
    `${server.url}/trpc/${eleven.map(() => "accounts.getMe").join("%2C")}?batch=1&input={}`,
  );
  await encoded.body?.cancel();
  assert.equal(encoded.status, 400);
  const ten = eleven.slice(0, 10);
  const ok = await batch(server, ten.map(() => "accounts.register"), ten);
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.body.length, 10);
  assert.equal((await usersNamed(server, ten.map((u) => u.email))).length, 10);
});

suite.test(
  "a batch link with maxItems: 10 splits larger batches and is served",
  async (api, server) => {
    const user = await registerUser(api);
    const trpc = createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({
          url: `${server.url}/trpc`,
          maxItems: 10,
          headers: { authorization: `Bearer ${user.accessToken}` },
        }),
      ],
    });
    const replies = await Promise.all(
      Array.from({ length: 15 }, () => trpc.accounts.getMe.query()),
    );
    assertEquals(new Set(replies.map((me) => me.id)), new Set([user.user.id]));
  },
);

/** No stack trace, no source path, anywhere in the text of a tRPC reply. */
function assertNoStack(text: string, label: string) {
  assert.equal(/"stack"/.test(text), false, `${label}: ${text}`);
  assert.equal(/file:\/\/|\/src\/|\.ts:\d+/.test(text), false, `${label}: ${text}`);
}

suite.test("tRPC errors never carry a stack trace", async (api, server) => {
  // The case the contract names: tests run with NODE_ENV unset, where tRPC's default shape
  // would include the stack.
  assert.notEqual(Deno.env.get("NODE_ENV"), "production");
  const user = await registerUser(api);
  const get = async (path: string, token?: string) => {
    const res = await fetch(`${server.url}/trpc/${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: res.status, text: await res.text() };
  };
  const cases: Array<[string, { status: number; text: string }, number]> = [
    ["query 401", await get("accounts.getMe"), 401],
    ["unknown procedure", await get("accounts.nothing"), 404],
    ["query in a batch", await get("accounts.getMe,accounts.listSessions?batch=1&input={}"), 401],
    ["mutation 400", await batch(server, ["accounts.register"], [{}]), 400],
    [
      "mutation 401",
      await batch(server, ["accounts.login"], [{ identifier: "nobody", password: "x" }]),
      401,
    ],
    [
      "mixed batch",
      await batch(server, ["accounts.register", "accounts.login"], [{}, { identifier: "a" }]),
      400,
    ],
    ["bad JSON", await rawPost(server, "accounts.login", "{oops"), 400],
  ];
  // Internal failures, in a query and in a mutation: the message is generic too (a thrown
  // error's own message may name files, hosts or SQL).
  const accounts = server.app.services.accounts;
  const { getMe, logout } = accounts;
  const secret = "connect ECONNREFUSED /var/secret/path.sock";
  accounts.getMe = () => Promise.reject(new Error(secret));
  accounts.logout = () => Promise.reject(new Error(secret));
  // One error path: the cause is in the service's log, for /trpc as for REST.
  const logged: Array<Record<string, unknown>> = [];
  const { error: logError } = server.app.logger;
  server.app.logger.error = (msg, fields) => logged.push({ msg, ...fields });
  try {
    cases.push(["query 500", await get("accounts.getMe", user.accessToken), 500]);
    cases.push([
      "mutation 500",
      await batch(server, ["accounts.logout"], [{}], user.accessToken),
      500,
    ]);
    cases.push([
      "batch 500",
      await batch(server, ["accounts.logout", "accounts.logout"], [{}, {}], user.accessToken),
      500,
    ]);
  } finally {
    accounts.getMe = getMe;
    accounts.logout = logout;
    server.app.logger.error = logError;
  }
  assertEquals(
    logged.map((l) => [l.msg, l.path, l.error]),
    [
      ["request failed", "/trpc/accounts.getMe", `Error: ${secret}`],
      ["request failed", "/trpc/accounts.logout", `Error: ${secret}`],
      ["request failed", "/trpc/accounts.logout", `Error: ${secret}`],
      ["request failed", "/trpc/accounts.logout", `Error: ${secret}`],
    ],
  );
  for (const [label, reply, status] of cases) {
    assert.equal(reply.status, status, `${label}: ${reply.text}`);
    assertNoStack(reply.text, label);
    assert.equal(reply.text.includes("secret"), false, `${label}: ${reply.text}`);
  }
  const internal = JSON.parse(cases.find(([l]) => l === "query 500")![1].text);
  assertEquals(internal.error.message, "Internal server error");
  // The REST envelope of the same failure says no more.
  accounts.getMe = () => Promise.reject(new Error(secret));
  try {
    const rest = await api.get("/auth/me", { token: user.accessToken });
    expectError(rest, 500);
    assertNoStack(JSON.stringify(rest.body), "REST 500");
  } finally {
    accounts.getMe = getMe;
  }
});

async function rawPost(server: TestServer, path: string, body: string) {
  const res = await fetch(`${server.url}/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  return { status: res.status, text: await res.text() };
}

suite.end();
