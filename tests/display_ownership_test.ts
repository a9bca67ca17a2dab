/**
 * Display ownership and fair shares (CONTRACT.md, issue 33): a MAC identifies a display and never
 * proves who may own it. Each case is the attack the third security review ran, refused: an
 * enrollment token with someone else's MAC, a re-pair claimed by a stranger, a key taken by
 * calling setup first, claim codes guessed in bulk, displays, tokens and log bytes without bound,
 * a panel larger than a rendition may be.
 */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { claimedDisplay, newMac } from "./helpers/displays.ts";
import { customPush, greyPng } from "./helpers/custom_push.ts";
import { AppError } from "../src/errors.ts";

const suite = serverSuite("display ownership", {
  DISPLAY_SETUPS_PER_MINUTE: "200",
  DISPLAYS_PER_USER: "5",
});

const PREFIX = "B2";

const setup = (api: Client, mac: string) =>
  api.get("/api/setup", { headers: { ID: mac, Model: "og" } });

const poll = (api: Client, mac: string, key: string) =>
  api.get("/api/display", { headers: { ID: mac, "Access-Token": key, Model: "og" } });

const claim = (api: Client, token: string, code: unknown) =>
  api.post("/api/devices/claim", { token, body: { code } });

/** `n` enrollment tokens asked for at once. */
function tokensAtOnce(api: Client, token: string, n: number) {
  return Promise.all(
    Array.from(
      { length: n },
      () => api.post("/api/devices/enrollment-tokens", { token, body: {} }),
    ),
  );
}

async function enrollmentToken(api: Client, token: string, name?: string) {
  return expectStatus(
    await api.post("/api/devices/enrollment-tokens", { token, body: name ? { name } : {} }),
    201,
  ).token as string;
}

suite.test("an enrollment token never adopts another user's claimed MAC", async (api) => {
  const owner = await claimedDisplay(api, PREFIX);
  await customPush(api, owner.user.accessToken, owner.device.id, greyPng(64, 64));
  const stranger = await registerUser(api);
  const token = await enrollmentToken(api, stranger.accessToken);
  // The stranger's first poll with the owner's MAC: 401, and nothing changed.
  expectError(await poll(api, owner.mac, token), 401);
  const device = expectStatus(
    await api.get(`/api/devices/${owner.device.id}`, { token: owner.user.accessToken }),
    200,
  );
  assertEquals(device.ownerId, owner.user.user.id);
  expectError(
    await api.get(`/api/devices/${owner.device.id}`, { token: stranger.accessToken }),
    403,
  );
  assert.equal(expectStatus(await poll(api, owner.mac, owner.key), 200).status, 0);
  const pushes = expectStatus(
    await api.get(`/api/devices/${owner.device.id}/pushes`, { token: owner.user.accessToken }),
    200,
  );
  assert.equal(pushes.items.length, 1, "the owner's pushes are kept");
  assertEquals(
    expectStatus(await api.get("/api/devices", { token: stranger.accessToken }), 200),
    [],
  );
  // The token is still unused: with a MAC of no display, it makes the stranger's own display.
  const own = newMac(PREFIX);
  assert.equal(expectStatus(await poll(api, own, token), 200).status, 0);
});

suite.test("an enrollment token never adopts a pending MAC", async (api) => {
  const mac = newMac(PREFIX);
  const pending = expectStatus(await setup(api, mac), 200);
  const user = await registerUser(api);
  const token = await enrollmentToken(api, user.accessToken);
  expectError(await poll(api, mac, token), 401);
  // The pending display is as it was: its key shows its claim screen, its code is claimable.
  assert.equal(expectStatus(await poll(api, mac, pending.api_key), 200).status, 202);
  const other = await registerUser(api);
  expectStatus(await claim(api, other.accessToken, pending.friendly_id), 200);
});

suite.test("enrollment: a display its owner let go may be enrolled; the name is the nickname", async (api) => {
  const owner = await claimedDisplay(api, PREFIX);
  const token = await enrollmentToken(api, owner.user.accessToken, "Kitchen Kindle");
  // Still claimed, even by the token's own user: refused.
  expectError(await poll(api, owner.mac, token), 401);
  expectStatus(
    await api.post(`/api/devices/${owner.device.id}/unbind`, { token: owner.user.accessToken }),
    200,
  );
  assert.equal(expectStatus(await poll(api, owner.mac, token), 200).status, 0);
  const [device] = expectStatus(
    await api.get("/api/devices", { token: owner.user.accessToken }),
    200,
  );
  assertEquals([device.hwId, device.nickname], [
    owner.mac.replaceAll(":", "").toLowerCase(),
    "Kitchen Kindle",
  ]);
  // A fresh MAC: the token's name is the new device's nickname too.
  const fresh = await registerUser(api);
  const named = await enrollmentToken(api, fresh.accessToken, "Hall Pi");
  expectStatus(await poll(api, newMac(PREFIX), named), 200);
  const [pi] = expectStatus(await api.get("/api/devices", { token: fresh.accessToken }), 200);
  assertEquals(pi.nickname, "Hall Pi");
});

suite.test("re-pair: only the display's owner can claim its code", async (api) => {
  const owner = await claimedDisplay(api, PREFIX);
  const stranger = await registerUser(api);
  const repair = expectStatus(await setup(api, owner.mac), 200);
  // The stranger gets the one 404 of an unknown code, word for word.
  const refused = await claim(api, stranger.accessToken, repair.friendly_id);
  const unknown = await claim(api, stranger.accessToken, "ZZZZZZ");
  expectError(refused, 404);
  assertEquals(refused.body, unknown.body);
  // The owner's display works on; the re-pair key shows the claim screen.
  assert.equal(expectStatus(await poll(api, owner.mac, owner.key), 200).status, 0);
  assert.equal(expectStatus(await poll(api, owner.mac, repair.api_key), 200).status, 202);
  // The owner claims it: the same device, the new key; the old one stops.
  const mine = expectStatus(await claim(api, owner.user.accessToken, repair.friendly_id), 200);
  assertEquals(mine.device.id, owner.device.id);
  expectError(await poll(api, owner.mac, owner.key), 401);
  assert.equal(expectStatus(await poll(api, owner.mac, repair.api_key), 200).status, 0);
});

suite.test("a sold display: once the owner unbinds it, the buyer claims its re-pair", async (api) => {
  const owner = await claimedDisplay(api, PREFIX);
  const buyer = await registerUser(api);
  // The buyer's factory reset: setup again, a new code.
  const repair = expectStatus(await setup(api, owner.mac), 200);
  expectError(await claim(api, buyer.accessToken, repair.friendly_id), 404);
  expectStatus(
    await api.post(`/api/devices/${owner.device.id}/unbind`, { token: owner.user.accessToken }),
    200,
  );
  const bought = expectStatus(await claim(api, buyer.accessToken, repair.friendly_id), 200);
  assertEquals(bought.device.ownerId, buyer.user.id);
  expectError(await poll(api, owner.mac, owner.key), 401);
  assert.equal(expectStatus(await poll(api, owner.mac, repair.api_key), 200).status, 0);
});

suite.test("setup: each setup of a pending MAC answers a new key, the earlier one stops", async (api) => {
  const mac = newMac(PREFIX);
  const first = expectStatus(await setup(api, mac), 200);
  // Someone calls setup before (or after) the display: the keys differ, the code stays.
  const second = expectStatus(await setup(api, mac), 200);
  assert.notEqual(second.api_key, first.api_key);
  assertEquals(second.friendly_id, first.friendly_id);
  expectError(await poll(api, mac, first.api_key), 401);
  assert.equal(expectStatus(await poll(api, mac, second.api_key), 200).status, 202);
  // Concurrent setups of one MAC: one pending display, exactly one key works.
  const keys = await Promise.all(
    Array.from({ length: 6 }, async () => expectStatus(await setup(api, mac), 200)),
  );
  assertEquals(new Set(keys.map((k) => k.friendly_id)).size, 1);
  const polls = await Promise.all(keys.map((k) => poll(api, mac, k.api_key)));
  assertEquals(polls.filter((p) => p.status === 200).length, 1);
  // The claim moves the display to the claimer, and the working key is its key.
  const user = await registerUser(api);
  expectStatus(await claim(api, user.accessToken, first.friendly_id), 200);
  const live = keys[polls.findIndex((p) => p.status === 200)];
  assert.equal(expectStatus(await poll(api, mac, live.api_key), 200).status, 0);
});

suite.test("claim codes: 10 wrong per user, then 429 before any look-up; others unaffected", async (api) => {
  const guesser = await registerUser(api);
  // 30 wrong guesses at once: exactly 10 are looked up (404), the rest 429.
  const guesses = await Promise.all(
    Array.from({ length: 30 }, (_, i) => claim(api, guesser.accessToken, `QQQQ${i}`.slice(0, 6))),
  );
  assertEquals(guesses.filter((g) => g.status === 404).length, 10);
  const refused = guesses.filter((g) => g.status === 429);
  assertEquals(refused.length, 20);
  expectError(refused[0], 429, /claim codes/);
  const wait = Number(refused[0].headers.get("retry-after"));
  assert.ok(wait >= 1 && wait <= 900, `Retry-After ${wait}`);
  // Even a right code is refused now, and it stays pending.
  const mac = newMac(PREFIX);
  const pending = expectStatus(await setup(api, mac), 200);
  expectError(await claim(api, guesser.accessToken, pending.friendly_id), 429);
  // Another user's right code is unaffected.
  const owner = await registerUser(api);
  expectStatus(await claim(api, owner.accessToken, pending.friendly_id), 200);
  // Right codes are not counted: one user claims 5 displays in a row after 9 wrong ones.
  const busy = await registerUser(api);
  for (let i = 0; i < 9; i++) expectError(await claim(api, busy.accessToken, "WRONG1"), 404);
  for (let i = 0; i < 4; i++) {
    const code = expectStatus(await setup(api, newMac(PREFIX)), 200).friendly_id;
    expectStatus(await claim(api, busy.accessToken, code), 200);
  }
  expectError(await claim(api, busy.accessToken, "WRONG1"), 404);
  expectError(await claim(api, busy.accessToken, "WRONG1"), 429);
});

suite.test("claim codes: a /trpc batch counts each call", async (api, s) => {
  const user = await registerUser(api);
  const names = Array.from({ length: 10 }, () => "displays.claimDisplay").join(",");
  const input = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [String(i), { code: "BATCH" + i }]),
  );
  const first = await fetch(`${s.url}/trpc/${names}?batch=1`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${user.accessToken}` },
    body: JSON.stringify(input),
  });
  const firstBody = await first.json();
  assertEquals(
    firstBody.map((r: { error?: { data?: { httpStatus?: number } } }) => r.error?.data?.httpStatus),
    Array(10).fill(404),
  );
  const second = await fetch(`${s.url}/trpc/${names}?batch=1`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${user.accessToken}` },
    body: JSON.stringify(input),
  });
  const secondBody = await second.json();
  assertEquals(
    secondBody.map((r: { error?: { data?: { httpStatus?: number } } }) =>
      r.error?.data?.httpStatus
    ),
    Array(10).fill(429),
  );
});

suite.test(
  "claim codes: 100 wrong per source a minute, an IPv6 source by its /64",
  async (_api, s) => {
    const displays = s.app.services.displays.pairing;
    const users = Array.from({ length: 11 }, () => crypto.randomUUID());
    const statusOf = async (work: Promise<unknown>) => {
      try {
        await work;
        return 200;
      } catch (error) {
        if (error instanceof AppError) return error.status;
        throw error;
      }
    };
    // Ten users, ten wrong codes each, from addresses of one /64.
    for (const [u, userId] of users.slice(0, 10).entries()) {
      for (let i = 0; i < 10; i++) {
        assertEquals(
          await statusOf(displays.claim(userId, "NOPE00", `2001:db8:0:7::${u}:${i}`)),
          404,
        );
      }
    }
    // The 101st from the /64, by a user with no wrong code yet: 429 before any look-up.
    assertEquals(await statusOf(displays.claim(users[10], "NOPE00", "2001:db8:0:7:ffff::1")), 429);
    // Another /64 and an IPv4 address are counted apart.
    assertEquals(await statusOf(displays.claim(users[10], "NOPE00", "2001:db8:0:8::1")), 404);
    assertEquals(await statusOf(displays.claim(users[10], "NOPE00", "198.51.100.7")), 404);
  },
);

suite.test("setup: the per-address limit counts an IPv6 /64 as one source", async (_api, s) => {
  const { db } = s.app.services;
  const pairing = s.app.services.displays.pairing;
  const hitsOf = (key: string) =>
    db.selectFrom("display_rate_windows").select(["hits", "window_start"]).where("key", "=", key)
      .execute();
  // Two addresses of one /64 count in one window (tried again on a fresh /64 should a minute's
  // window turn over between the two setups), another /64 apart.
  for (let prefix = 0x10;; prefix++) {
    await pairing.setup(newMac(PREFIX), `2001:db8:${prefix.toString(16)}:5::1`);
    await pairing.setup(newMac(PREFIX), `2001:db8:${prefix.toString(16)}:5:ffff::2`);
    const rows = await hitsOf(`ip:2001:db8:${prefix.toString(16)}:5::/64`);
    if (rows.length === 1 && rows[0].hits === 1 && prefix < 0x13) continue;
    assertEquals(rows.map((r) => r.hits), [2]);
    break;
  }
  await pairing.setup(newMac(PREFIX), "2001:db8:99:6::1");
  assertEquals((await hitsOf("ip:2001:db8:99:6::/64")).map((r) => r.hits), [1]);
});

suite.test("enrollment tokens count as displays: with DISPLAYS_PER_USER 5, the sixth is 409", async (api) => {
  const user = await registerUser(api);
  const made = await tokensAtOnce(api, user.accessToken, 25);
  // DISPLAYS_PER_USER is 5 here: five tokens, then 409 (the limit of displays comes first).
  assertEquals(made.filter((r) => r.status === 201).length, 5);
  for (const r of made.filter((r) => r.status !== 201)) expectError(r, 409, /DISPLAYS_PER_USER/);
});

suite.test("a user holds at most DISPLAYS_PER_USER displays: the next claim is 409", async (api) => {
  const user = await registerUser(api);
  for (let i = 0; i < 5; i++) {
    const code = expectStatus(await setup(api, newMac(PREFIX)), 200).friendly_id;
    expectStatus(await claim(api, user.accessToken, code), 200);
  }
  const mac = newMac(PREFIX);
  const pending = expectStatus(await setup(api, mac), 200);
  expectError(await claim(api, user.accessToken, pending.friendly_id), 409, /DISPLAYS_PER_USER/);
  // Refused, not counted as a wrong code, and still pending for someone else.
  assert.equal(expectStatus(await poll(api, mac, pending.api_key), 200).status, 202);
  // An enrollment token is refused too, and its first poll would not pass the limit.
  expectError(
    await api.post("/api/devices/enrollment-tokens", { token: user.accessToken, body: {} }),
    409,
  );
});

suite.test("logs: an entry over 4 KiB is cut and marked; a display keeps at most 1 MiB", async (api) => {
  const { user, mac, key, device } = await claimedDisplay(api, PREFIX);
  const send = (body: unknown) =>
    api.post("/api/log", { headers: { ID: mac, "Access-Token": key }, body });
  const big = { message: "big", detail: "x".repeat(10_000) };
  assertEquals((await send({ logs: [big] })).status, 204);
  const page = expectStatus(
    await api.get(`/api/devices/${device.id}/logs`, { token: user.accessToken }),
    200,
  );
  const kept = page.items[0];
  assertEquals([kept.message, kept.entry.truncated], ["big", true]);
  assert.ok(JSON.stringify(kept.entry).length <= 4096);
  assert.ok(kept.entry.bytes > 10_000);
  assert.ok(String(kept.entry.excerpt).startsWith('{"message":"big"'));
  // 400 entries of ~4 KiB (1.6 MiB): the newest that fit in 1 MiB are kept, none older.
  for (let batch = 0; batch < 40; batch++) {
    const logs = Array.from({ length: 10 }, (_, i) => ({
      message: `m${batch * 10 + i}`,
      detail: "y".repeat(3800),
    }));
    assertEquals((await send({ logs })).status, 204);
  }
  let cursor: string | undefined;
  const messages: string[] = [];
  do {
    const next = expectStatus(
      await api.get(
        `/api/devices/${device.id}/logs?limit=50${
          cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""
        }`,
        { token: user.accessToken },
      ),
      200,
    );
    messages.push(...next.items.map((i: { message: string }) => i.message));
    cursor = next.nextCursor;
  } while (cursor);
  assert.ok(messages.length >= 200 && messages.length < 300, `${messages.length} kept`);
  assertEquals(messages[0], "m399");
  assertEquals(messages.at(-1), `m${400 - messages.length}`);
});

suite.test("display profile: at most 4,000,000 pixels; larger reported sides are not taken", async (api) => {
  const { user, mac, key, device } = await claimedDisplay(api, PREFIX);
  const path = `/api/devices/${device.id}/display-profile`;
  const token = user.accessToken;
  expectError(await api.put(path, { token, body: { width: 4096, height: 4096 } }), 400, /pixels/);
  expectError(await api.put(path, { token, body: { width: 2001, height: 2000 } }), 400, /pixels/);
  const ok = expectStatus(await api.put(path, { token, body: { width: 2000, height: 2000 } }), 200);
  assertEquals([ok.width, ok.height], [2000, 2000]);
  // A display that reports a 4096x4096 panel is drawn at its model's size.
  const other = await claimedDisplay(api, PREFIX);
  const reported = await api.get("/api/display", {
    headers: {
      ID: other.mac,
      "Access-Token": other.key,
      Model: "og",
      Width: "4096",
      Height: "4096",
    },
  });
  assertEquals(expectStatus(reported, 200).status, 0);
  const profile = expectStatus(
    await api.get(`/api/devices/${other.device.id}/display-profile`, {
      token: other.user.accessToken,
    }),
    200,
  );
  assertEquals([profile.width, profile.height], [800, 480]);
  void mac;
  void key;
});

suite.end();

/** The default DISPLAYS_PER_USER (100), so the token limit is the one met. */
const roomy = serverSuite("display ownership, default limits");

roomy.test("enrollment tokens: at most 20 unused per user, the 21st is 429", async (api) => {
  const user = await registerUser(api);
  const made = await tokensAtOnce(api, user.accessToken, 25);
  assertEquals(made.filter((r) => r.status === 201).length, 20);
  const refused = made.filter((r) => r.status !== 201);
  for (const r of refused) expectError(r, 429, /20 unused enrollment tokens/);
  const wait = Number(refused[0].headers.get("retry-after"));
  assert.ok(wait > 86_000 && wait <= 86_400, `Retry-After ${wait}`);
  // A used token no longer counts: its display takes its place, and one more can be made.
  expectStatus(
    await poll(api, newMac(PREFIX), made.find((r) => r.status === 201)!.body.token),
    200,
  );
  expectStatus(
    await api.post("/api/devices/enrollment-tokens", { token: user.accessToken, body: {} }),
    201,
  );
  // Another user is unaffected.
  const other = await registerUser(api);
  await enrollmentToken(api, other.accessToken);
});

roomy.end();
