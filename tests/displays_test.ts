/**
 * Displays people already own (CONTRACT.md, TRMNL's pull protocol): the service spoken to
 * exactly as TRMNL's firmware and its clients speak (their header names and cases, a plain GET
 * of `image_url`), and every refused case. No reply of any display endpoint may carry a body
 * `status` of 500 or `reset_firmware: true` (the firmware wipes itself on either).
 */
import { decode as decodePng, encode as encodePng } from "fast-png";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type CallOptions, type Client, registerUser, type Reply } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { newMac } from "./helpers/displays.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import { createDevice, insertPush } from "./helpers/devices.ts";
import { customPush, greyPng } from "./helpers/custom_push.ts";
import { account, expectCode, hardcodePresentation } from "./helpers/targetless.ts";
import type { TestServer } from "./helpers/server.ts";

const suite = serverSuite("displays", { DISPLAY_SETUPS_PER_MINUTE: "40" });

/** Every reply of a display endpoint in this file, for the "never wipe" check at the end. */
const seen: Reply[] = [];
/** The one reply the owner asked to wipe the display with (`POST .../reset`). */
const askedResets = new Set<Reply>();

/** `GET /api/setup` with the firmware's headers. */
async function setup(api: Client, mac: string | null, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = {
    "FW-Version": "1.6.2",
    Model: "og",
    "Content-Type": "application/json",
    ...extra,
  };
  if (mac !== null) headers.ID = mac;
  const reply = await api.get("/api/setup", { headers });
  seen.push(reply);
  return reply;
}

/** `GET /api/display` with every header the firmware sends on a wake. */
async function poll(api: Client, mac: string, key: string, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = {
    ID: mac,
    "Access-Token": key,
    "Refresh-Rate": "900",
    "Battery-Voltage": "3.90",
    "FW-Version": "1.6.2",
    Model: "og",
    RSSI: "-61",
    Width: "800",
    Height: "480",
    "Update-Source": "timer",
    "Image-Cached": "false",
    "Wake-Time": "123",
    "Temperature-Profile": "default",
    ...extra,
  };
  const reply = await api.get("/api/display", { headers });
  seen.push(reply);
  return reply;
}

async function call(api: Client, path: string, options: CallOptions) {
  const reply = await api.get(path, options);
  seen.push(reply);
  return reply;
}

/** A plain GET of `image_url`, no header, as the Kindle and Raspberry Pi clients do. */
async function image(url: string) {
  const res = await fetchChecked(url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  return new Uint8Array(await res.arrayBuffer());
}

/** A display set up and claimed by a fresh user. */
async function claimed(api: Client) {
  const user = await registerUser(api);
  const mac = newMac();
  const s = expectStatus(await setup(api, mac), 200);
  const claim = expectStatus(
    await api.post("/api/devices/claim", {
      token: user.accessToken,
      body: { code: s.friendly_id },
    }),
    200,
  );
  return { user, mac, key: s.api_key as string, device: claim.device };
}

suite.test("setup: a pending display with a key, a claim code and a claim screen", async (api) => {
  const mac = newMac();
  const body = expectStatus(await setup(api, mac), 200);
  assertEquals(Object.keys(body).sort(), [
    "api_key",
    "friendly_id",
    "image_url",
    "message",
    "status",
  ]);
  assert.equal(body.status, 200);
  assert.match(body.api_key, /^[A-Za-z0-9_-]{43}$/); // 32 random bytes
  assert.match(body.friendly_id, /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$/);
  assert.ok(body.message.includes(body.friendly_id));
  const png = decodePng(await image(body.image_url));
  assertEquals([png.width, png.height, png.depth], [800, 480, 1]);

  // The same pending MAC (any case, any separator) is the same display, with a new key
  // (CONTRACT.md "Display ownership and fair shares"): the earlier one stops.
  const again = expectStatus(await setup(api, mac.toLowerCase().replaceAll(":", "")), 200);
  assertEquals(again.friendly_id, body.friendly_id);
  assert.notEqual(again.api_key, body.api_key);
  expectError(await poll(api, mac, body.api_key), 401);

  // Polling while pending: body status 202 and the claim screen.
  const pending = expectStatus(await poll(api, mac, again.api_key), 200);
  assert.equal(pending.status, 202);
  assert.equal(pending.reset_firmware, false);
  assert.match(pending.filename, /^[0-9a-f]{64}$/);
  const shown = await image(pending.image_url);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", shown)).toHex();
  assert.equal(pending.filename, digest);
});

suite.test("setup: a missing or malformed ID is 400", async (api) => {
  expectError(await setup(api, null), 400);
  expectError(await setup(api, "not-a-mac"), 400);
  expectError(await setup(api, "AA:BB:CC:DD:EE"), 400);
  expectError(await setup(api, "GG:BB:CC:DD:EE:FF"), 400);
});

suite.test("claim: the display becomes the caller's device; GET /api/devices lists it", async (api) => {
  const { user, mac, device } = await claimed(api);
  const hwId = mac.replaceAll(":", "").toLowerCase();
  assertEquals([device.hwId, device.thingName, device.transport, device.ownerId], [
    hwId,
    `display-${hwId}`,
    "http",
    user.user.id,
  ]);
  const list = expectStatus(await api.get("/api/devices", { token: user.accessToken }), 200);
  const listed = (list as Array<{ id: string; transport: string }>).find((d) => d.id === device.id);
  assert.equal(listed?.transport, "http");
});

suite.test(
  "claim: unknown, expired, already claimed and malformed codes are one 404",
  async (api, s) => {
    const user = await registerUser(api);
    const other = await registerUser(api);
    const token = user.accessToken;
    expectError(await api.post("/api/devices/claim", { token, body: { code: "ZZZZZZ" } }), 404);
    expectError(await api.post("/api/devices/claim", { token, body: { code: "x" } }), 404);
    // Expired.
    const mac = newMac();
    const body = expectStatus(await setup(api, mac), 200);
    await expire(s, body.friendly_id);
    const expired = await api.post("/api/devices/claim", {
      token,
      body: { code: body.friendly_id },
    });
    expectError(expired, 404);
    // Claimed by another user first: the same 404, same message.
    const mac2 = newMac();
    const fresh = expectStatus(await setup(api, mac2), 200);
    expectStatus(
      await api.post("/api/devices/claim", {
        token: other.accessToken,
        body: { code: fresh.friendly_id.toLowerCase() },
      }),
      200,
    );
    const taken = await api.post("/api/devices/claim", {
      token,
      body: { code: fresh.friendly_id },
    });
    expectError(taken, 404);
    assert.equal(taken.body.error, expired.body.error);
    // Without a credential.
    expectError(await api.post("/api/devices/claim", { body: { code: fresh.friendly_id } }), 401);
    // The other user's display is not the caller's.
    const devices = expectStatus(await api.get("/api/devices", { token }), 200);
    assert.equal(devices.length, 0);
  },
);

suite.test("poll: an expired code of a pending display is renewed at its poll", async (api, s) => {
  const mac = newMac();
  const body = expectStatus(await setup(api, mac), 200);
  await expire(s, body.friendly_id);
  const pending = expectStatus(await poll(api, mac, body.api_key), 200);
  assert.equal(pending.status, 202);
  const again = expectStatus(await setup(api, mac), 200);
  assert.notEqual(again.api_key, body.api_key);
  assert.notEqual(again.friendly_id, body.friendly_id);
  // The renewed code is the one the poll showed; setup answers it with a new key.
  const shown = expectStatus(await poll(api, mac, again.api_key), 200);
  assert.equal(shown.status, 202);
});

suite.test(
  "poll: claimed without a push shows a 'nothing yet' screen, then its pushes",
  async (api, s) => {
    const { user, mac, key, device } = await claimed(api);
    const first = expectStatus(await poll(api, mac, key), 200);
    assertEquals(Object.keys(first).sort(), [
      "filename",
      "firmware_url",
      "image_url",
      "refresh_rate",
      "reset_firmware",
      "special_function",
      "status",
      "update_firmware",
    ]);
    assertEquals([first.status, first.refresh_rate, first.reset_firmware], [0, 900, false]);
    await image(first.image_url);
    // The headers reached health and state.
    const health = expectStatus(
      await api.get(`/api/devices/${device.id}/health`, { token: user.accessToken }),
      200,
    );
    assertEquals([health.battery, health.firmware, health.online], [75, "1.6.2", true]);
    assert.equal(JSON.parse(health.state).rssi, "-61");

    // A queued push is published at the next poll; then the same filename until another comes.
    const low = await insertPush(s, device, user.user.id, { priority: 1 });
    const high = await insertPush(s, device, user.user.id, { priority: 5 });
    const shown = expectStatus(await poll(api, mac, key), 200);
    assert.equal(shown.status, 0);
    // Another push waits: the display comes back in about a minute.
    assert.equal(shown.refresh_rate, 60);
    assert.notEqual(shown.filename, first.filename);
    const push = expectStatus(
      await api.get(`/api/devices/${device.id}/push`, { token: user.accessToken }),
      200,
    );
    assertEquals(push.pushId, high);
    // Acts like refresh: the next poll publishes the queued one, the previous one expires.
    const next = expectStatus(await poll(api, mac, key), 200);
    const after = expectStatus(
      await api.get(`/api/devices/${device.id}/push`, { token: user.accessToken }),
      200,
    );
    assertEquals(after.pushId, low);
    assert.equal(next.image_url.startsWith(new URL(s.url).origin), true);
    const still = expectStatus(await poll(api, mac, key), 200);
    assertEquals([still.filename, still.refresh_rate], [next.filename, 900]);
    // Back with the push it was given: it has shown it (CONFIRMED in the push history).
    const history = expectStatus(
      await api.get(`/api/devices/${device.id}/pushes`, { token: user.accessToken }),
      200,
    );
    const statuses = Object.fromEntries(
      history.items.map((i: { pushId: string; status: string }) => [i.pushId, i.status]),
    );
    assertEquals([statuses[high], statuses[low]], ["EXPIRED", "CONFIRMED"]);
    await image(still.image_url);
  },
);

/** What TRMNL's Kindle client (`TRMNL.sh`) sends on a Paperwhite's 1072x1448 framebuffer. */
const KINDLE = {
  "User-Agent": "trmnl-kindle/0.1.1",
  "percent-charged": "42",
  "png-width": "1448",
  "png-height": "1072",
  rssi: "0",
};

suite.test("poll: the Kindle client gets a picture for its portrait framebuffer, 16 greys", async (api) => {
  const { user, mac, key, device } = await claimed(api);
  const token = user.accessToken;
  const kindle = (extra = {}) =>
    call(api, "/api/display", { headers: { ID: mac, "access-token": key, ...KINDLE, ...extra } });
  const ready = expectStatus(await kindle(), 200);
  assert.equal(ready.status, 0);
  const health = expectStatus(await api.get(`/api/devices/${device.id}/health`, { token }), 200);
  assert.equal(health.battery, 42);
  // Its profile: the framebuffer (1072 wide, 1448 high), 4 bits, the landscape picture turned.
  const profile = expectStatus(
    await api.get(`/api/devices/${device.id}/display-profile`, { token }),
    200,
  );
  assertEquals(
    [profile.model, profile.width, profile.height, profile.bitDepth, profile.rotation],
    ["kindle", 1072, 1448, 4, 90],
  );
  // The "nothing yet" screen and a push are both drawn for that framebuffer: eips -g shows them
  // whole and upright when the Kindle is held in landscape.
  const screen = decodePng(await image(expectStatus(await kindle(), 200).image_url));
  assertEquals([screen.width, screen.height, screen.depth], [1072, 1448, 4]);
  await customPush(api, token, device.id, topBlackPortrait());
  let shown;
  for (let i = 0; i < 50 && !shown; i++) {
    const reply = expectStatus(await kindle(), 200);
    if (reply.image_url.includes("/api/display/image/")) shown = reply;
    else await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(shown, "the push was never shown");
  const png = decodePng(await image(shown.image_url));
  assertEquals([png.width, png.height, png.depth], [1072, 1448, 4]);
  // The owner can hang it the other way round.
  const turned = expectStatus(
    await api.put(`/api/devices/${device.id}/display-profile`, { token, body: { rotation: 270 } }),
    200,
  );
  assertEquals([turned.model, turned.rotation], ["kindle", 270]);
});

suite.test("claim: the answer shows what the display reported while it waited", async (api) => {
  const mac = newMac();
  const pending = expectStatus(await setup(api, mac), 200);
  assert.equal(expectStatus(await poll(api, mac, pending.api_key), 200).status, 202);
  const user = await registerUser(api);
  const { device } = expectStatus(
    await api.post("/api/devices/claim", {
      token: user.accessToken,
      body: { code: pending.friendly_id },
    }),
    200,
  );
  assertEquals([device.online, device.firmware], [true, "1.6.2"]);
  assert.ok(device.lastSeenAt, "lastSeenAt");
  assert.ok(device.battery > 50, `battery ${device.battery}`);
});

suite.test(
  "poll: polls of one display at once all answer, the push is confirmed once and the report kept",
  async (api, s) => {
    const { user, mac, key, device } = await claimed(api);
    const pushId = await insertPush(s, device, user.user.id);
    const published = expectStatus(await poll(api, mac, key), 200);
    // Sixteen at once, with a new battery reading and a new panel size (each written once: the
    // polls that come while it is written skip it instead of queueing on the row).
    const extra = { "Battery-Voltage": "3.70", Width: "1872", Height: "1404" };
    const replies = await Promise.all(
      Array.from({ length: 16 }, () => poll(api, mac, key, extra)),
    );
    for (const reply of replies) {
      const body = expectStatus(reply, 200);
      assertEquals([body.status, body.filename], [0, published.filename]);
    }
    const history = expectStatus(
      await api.get(`/api/devices/${device.id}/pushes`, { token: user.accessToken }),
      200,
    );
    const confirmed = history.items.filter((i: { status: string }) => i.status === "CONFIRMED");
    assertEquals(confirmed.map((i: { pushId: string }) => i.pushId), [pushId]);
    const health = () => api.get(`/api/devices/${device.id}/health`, { token: user.accessToken });
    const battery = expectStatus(await health(), 200).battery;
    assert.ok(battery < 75, `battery ${battery}`);
    const profile = expectStatus(
      await api.get(`/api/devices/${device.id}/display-profile`, { token: user.accessToken }),
      200,
    );
    assertEquals([profile.width, profile.height], [1872, 1404]);
    // A changed report within the minute is written at once.
    expectStatus(await poll(api, mac, key, { ...extra, RSSI: "-80" }), 200);
    assert.equal(JSON.parse(expectStatus(await health(), 200).state).rssi, "-80");
  },
);

suite.test("poll: displays polling at once each have their own report written", async (api) => {
  // Their reports share a write (issue 40): each device still gets its own values.
  const displays = await Promise.all([claimed(api), claimed(api), claimed(api)]);
  const volts = ["3.30", "3.60", "4.08"];
  const replies = await Promise.all(
    displays.flatMap(({ mac, key }, i) =>
      [0, 1].map(() => poll(api, mac, key, { "Battery-Voltage": volts[i], RSSI: String(-40 - i) }))
    ),
  );
  for (const reply of replies) expectStatus(reply, 200);
  for (const [i, { user, device }] of displays.entries()) {
    const health = expectStatus(
      await api.get(`/api/devices/${device.id}/health`, { token: user.accessToken }),
      200,
    );
    assertEquals([health.battery, JSON.parse(health.state).rssi], [[25, 50, 90][i], `${-40 - i}`]);
  }
});

suite.test("poll: unknown, malformed and missing keys are HTTP 401, never a reset", async (api) => {
  const mac = newMac();
  expectError(await poll(api, mac, "A".repeat(43)), 401);
  expectError(await poll(api, mac, "not a key!"), 401);
  expectError(await poll(api, mac, ""), 401);
  // No key and no MAC: nothing to stand for (a MAC alone is tests/keyless_test.ts).
  expectError(await call(api, "/api/display", { headers: {} }), 401);
});

suite.test("poll: absurd Width/Height are 400", async (api) => {
  const { mac, key } = await claimed(api);
  expectError(await poll(api, mac, key, { Width: "99999" }), 400);
  expectError(await poll(api, mac, key, { Height: "-4" }), 400);
  expectError(await poll(api, mac, key, { Width: "wide" }), 400);
});

suite.test("re-pair: the old key works until the new code is claimed, then 401", async (api) => {
  const { user, mac, key, device } = await claimed(api);
  const repair = expectStatus(await setup(api, mac), 200);
  assert.notEqual(repair.api_key, key);
  // Until claimed, the claimed key keeps working and the new one shows its claim screen.
  assert.equal(expectStatus(await poll(api, mac, key), 200).status, 0);
  assert.equal(expectStatus(await poll(api, mac, repair.api_key), 200).status, 202);
  // Claimed by the same user: the same device, the new key; the old key stops.
  const claim = expectStatus(
    await api.post("/api/devices/claim", {
      token: user.accessToken,
      body: { code: repair.friendly_id },
    }),
    200,
  );
  assert.equal(claim.device.id, device.id);
  expectError(await poll(api, mac, key), 401);
  assert.equal(expectStatus(await poll(api, mac, repair.api_key), 200).status, 0);
});

suite.test("re-pair by another user: 404, the display stays its owner's", async (api) => {
  const { user, mac, key, device } = await claimed(api);
  const other = await registerUser(api);
  const repair = expectStatus(await setup(api, mac), 200);
  expectError(
    await api.post("/api/devices/claim", {
      token: other.accessToken,
      body: { code: repair.friendly_id },
    }),
    404,
  );
  const mine = expectStatus(await api.get("/api/devices", { token: user.accessToken }), 200);
  assertEquals(mine.map((d: { id: string }) => d.id), [device.id]);
  assert.equal(expectStatus(await poll(api, mac, key), 200).status, 0);
});

suite.test("unbind: the display's key stops at once (401)", async (api) => {
  const { user, mac, key, device } = await claimed(api);
  expectStatus(
    await api.post(`/api/devices/${device.id}/unbind`, { token: user.accessToken }),
    200,
  );
  expectError(await poll(api, mac, key), 401);
});

suite.test(
  "display profile: registry by Model, then Width/Height, then the owner's PUT",
  async (api, s) => {
    const { user, mac, key, device } = await claimed(api);
    const token = user.accessToken;
    const path = `/api/devices/${device.id}/display-profile`;
    expectStatus(await poll(api, mac, key), 200);
    assertEquals(expectStatus(await api.get(path, { token }), 200), {
      model: "og",
      width: 800,
      height: 480,
      bitDepth: 1,
      colors: 2,
      rotation: 0,
      refreshRate: 900,
      sleepWindow: null,
      keyless: false,
    });
    // A TRMNL X without size headers: the registry's size and depth.
    const x = { Model: "x" } as Record<string, string>;
    const noSize = await call(api, "/api/display", {
      headers: { ID: mac, "Access-Token": key, ...x },
    });
    expectStatus(noSize, 200);
    assertEquals(expectStatus(await api.get(path, { token }), 200), {
      model: "x",
      width: 1872,
      height: 1404,
      bitDepth: 4,
      colors: 16,
      rotation: 0,
      refreshRate: 900,
      sleepWindow: null,
      keyless: false,
    });
    // Width/Height headers win over the registry; the owner's PUT over both.
    expectStatus(await poll(api, mac, key, { Model: "og", Width: "640", Height: "384" }), 200);
    const reported = expectStatus(await api.get(path, { token }), 200);
    assertEquals([reported.width, reported.height, reported.bitDepth], [640, 384, 1]);
    const put = expectStatus(
      await api.put(path, { token, body: { bitDepth: 2, width: 800 } }),
      200,
    );
    assertEquals([put.width, put.height, put.bitDepth, put.colors], [800, 384, 2, 4]);
    // Refused: unknown model, colors that do not match, a depth out of 1/2/4, absurd sizes.
    expectError(await api.put(path, { token, body: { model: "toaster" } }), 400);
    expectError(await api.put(path, { token, body: { colors: 16 } }), 400);
    expectError(await api.put(path, { token, body: { bitDepth: 3 } }), 400);
    expectError(await api.put(path, { token, body: { width: 99999 } }), 400);
    expectError(await api.put(path, { token, body: { refreshRate: 5 } }), 400);
    // The owner's refresh interval is the display's refresh_rate.
    const slow = expectStatus(await api.put(path, { token, body: { refreshRate: 3600 } }), 200);
    assertEquals([slow.refreshRate, slow.bitDepth], [3600, 2]);
    assertEquals(expectStatus(await poll(api, mac, key), 200).refresh_rate, 3600);
    // A sleep window around now (UTC): the display sleeps until its end, at least its interval.
    const hhmm = (d: Date) => d.toISOString().slice(11, 16);
    const start = hhmm(new Date(Date.now() - 3600_000));
    const end = hhmm(new Date(Date.now() + 5 * 3600_000));
    const night = expectStatus(
      await api.put(path, { token, body: { sleepWindow: { start, end, timeZone: "UTC" } } }),
      200,
    );
    assertEquals(night.sleepWindow, { start, end, timeZone: "UTC" });
    const sleeping = expectStatus(await poll(api, mac, key), 200).refresh_rate;
    assert.ok(sleeping > 4.9 * 3600 && sleeping <= 5 * 3600, String(sleeping));
    expectError(
      await api.put(path, {
        token,
        body: { sleepWindow: { start: "22:00", end: "06:00", timeZone: "Mars/Olympus" } },
      }),
      400,
    );
    expectError(
      await api.put(path, {
        token,
        body: { sleepWindow: { start: "25:00", end: "06:00", timeZone: "UTC" } },
      }),
      400,
    );
    const cleared = expectStatus(await api.put(path, { token, body: { sleepWindow: null } }), 200);
    assertEquals(cleared.sleepWindow, null);
    assertEquals(expectStatus(await poll(api, mac, key), 200).refresh_rate, 3600);
    // Another user's display is 403; a device that is not a display is 404.
    const other = await registerUser(api);
    expectError(await api.get(path, { token: other.accessToken }), 403);
    expectError(await api.put(path, { token: other.accessToken, body: { bitDepth: 1 } }), 403);
    const nfc = await createDevice(s, user.user.id);
    expectError(await api.get(`/api/devices/${nfc.id}/display-profile`, { token }), 404);
  },
);

/** Polls until the display shows something else than `filename`; the new reply. */
async function nextPicture(api: Client, mac: string, key: string, filename: string) {
  for (let i = 0; i < 120; i++) {
    const reply = expectStatus(await poll(api, mac, key), 200);
    if (reply.filename !== filename) return reply;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("the push never reached the display");
}

suite.test("per-panel rendering: a custom image for a 4-bit TRMNL X and a 2-bit panel", async (api) => {
  const { user, mac, key, device } = await claimed(api);
  const token = user.accessToken;
  const path = `/api/devices/${device.id}/display-profile`;
  expectStatus(await api.put(path, { token, body: { model: "x" } }), 200);
  const empty = expectStatus(await poll(api, mac, key), 200);
  await customPush(api, token, device.id, greyPng(640, 480));
  const shown = await nextPicture(api, mac, key, empty.filename);
  const x = decodePng(await image(shown.image_url));
  assertEquals([x.width, x.height, x.depth, x.channels], [1872, 1404, 4, 1]);

  expectStatus(await api.put(path, { token, body: { model: "og", bitDepth: 2 } }), 200);
  await customPush(api, token, device.id, greyPng(640, 480));
  const two = await nextPicture(api, mac, key, shown.filename);
  const og = decodePng(await image(two.image_url));
  assertEquals([og.width, og.height, og.depth, og.channels], [800, 480, 2, 1]);
  await Deno.writeFile(
    `${Deno.env.get("TMPDIR") ?? "/tmp"}/display_2bit.png`,
    await image(two.image_url),
  );
});

/** A portrait picture (480x800): its top half black, its bottom half white. */
function topBlackPortrait(): Uint8Array {
  const [width, height] = [480, 800];
  const data = new Uint8Array(width * height).fill(255);
  data.fill(0, 0, width * (height / 2));
  return encodePng({ width, height, data, channels: 1, depth: 8 });
}

/** The share of black pixels of a 1-bit PNG inside a box. */
function blackShare(
  png: ReturnType<typeof decodePng>,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
) {
  const stride = Math.ceil(png.width / 8);
  const bytes = png.data as Uint8Array;
  let black = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      if (((bytes[y * stride + (x >> 3)] >> (7 - (x & 7))) & 1) === 0) black++;
    }
  }
  return black / ((x1 - x0) * (y1 - y0));
}

suite.test("per-panel rendering: the profile's rotation turns the picture onto the panel", async (api) => {
  const { user, mac, key, device } = await claimed(api);
  const token = user.accessToken;
  const path = `/api/devices/${device.id}/display-profile`;
  // 90: the panel hangs with its top edge to the left; a portrait picture is laid out 480x800
  // and turned clockwise, so its top (black) is the panel's right half.
  expectStatus(await api.put(path, { token, body: { rotation: 90 } }), 200);
  let last = expectStatus(await poll(api, mac, key), 200).filename;
  const expected = {
    90: { left: 0, right: 1, top: 0.5, bottom: 0.5 },
    180: { left: 0.5, right: 0.5, top: 0, bottom: 1 },
    270: { left: 1, right: 0, top: 0.5, bottom: 0.5 },
    0: { left: 0.5, right: 0.5, top: 1, bottom: 0 },
  };
  for (const rotation of [90, 180, 270, 0] as const) {
    expectStatus(await api.put(path, { token, body: { rotation } }), 200);
    await customPush(api, token, device.id, topBlackPortrait());
    const shown = await nextPicture(api, mac, key, last);
    last = shown.filename;
    const bytes = await image(shown.image_url);
    const png = decodePng(bytes);
    assertEquals([png.width, png.height, png.depth], [800, 480, 1]);
    if (rotation === 90) {
      await Deno.writeFile(`${Deno.env.get("TMPDIR") ?? "/tmp"}/display_rotated_90.png`, bytes);
    }
    // Sampled away from the edges (0 rotation letterboxes the portrait picture in white).
    const share = {
      left: blackShare(png, 300, 200, 390, 280),
      right: blackShare(png, 410, 200, 500, 280),
      top: blackShare(png, 380, 100, 420, 230),
      bottom: blackShare(png, 380, 250, 420, 380),
    };
    for (const side of ["left", "right", "top", "bottom"] as const) {
      const want = expected[rotation][side];
      if (want === 0.5) continue;
      assert.ok(
        Math.abs(share[side] - want) < 0.05,
        `${rotation}: ${side} ${JSON.stringify(share)}`,
      );
    }
  }
});

suite.test("push history: the display's download is its fetchedAt, its next poll confirmedAt", async (api) => {
  const { user, mac, key, device } = await claimed(api);
  const token = user.accessToken;
  const empty = expectStatus(await poll(api, mac, key), 200);
  const pushId = await customPush(api, token, device.id, greyPng(640, 480));
  const shown = await nextPicture(api, mac, key, empty.filename);
  const url = new URL(shown.image_url);
  assertEquals(url.pathname, `/api/display/image/${pushId}`);
  const history = async () => {
    const page = expectStatus(await api.get(`/api/devices/${device.id}/pushes`, { token }), 200);
    return page.items.find((item: { pushId: string }) => item.pushId === pushId);
  };
  // Told to show it, not yet downloaded: no fetchedAt.
  assertEquals((await history()).fetchedAt, undefined);

  // Refused: a changed signature, another push's id, an expired or malformed expiry.
  const tampered = new URL(url);
  const signature = url.searchParams.get("signature")!;
  tampered.searchParams.set("signature", (signature[0] === "A" ? "B" : "A") + signature.slice(1));
  const other = new URL(url);
  other.pathname = `/api/display/image/${crypto.randomUUID()}`;
  const expired = new URL(url);
  expired.searchParams.set("expires", "1000");
  const junk = new URL(url);
  junk.searchParams.set("expires", "soon");
  for (const refused of [tampered, other, expired, junk]) {
    const res = await fetchChecked(refused.href);
    await res.body?.cancel();
    assert.equal(res.status, 403, refused.href);
  }
  assertEquals((await history()).fetchedAt, undefined);

  // The plain GET the firmware makes: the PNG, recorded once as fetched.
  const png = await image(shown.image_url);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", png)).toHex();
  assert.equal(digest, shown.filename);
  const fetched = await history();
  assert.ok(fetched.fetchedAt, JSON.stringify(fetched));
  assertEquals([fetched.status, fetched.confirmedAt], ["PUBLISHED", undefined]);
  await image(shown.image_url);
  assertEquals((await history()).fetchedAt, fetched.fetchedAt);
  // Back at its next poll with the same picture: shown, confirmed.
  expectStatus(await poll(api, mac, key), 200);
  const confirmed = await history();
  assertEquals(confirmed.status, "CONFIRMED");
  assert.ok(confirmed.confirmedAt >= confirmed.fetchedAt, JSON.stringify(confirmed));
});

/** The push's status in the device's history. */
async function statusOf(api: Client, token: string, deviceId: string, pushId: string) {
  const page = expectStatus(await api.get(`/api/devices/${deviceId}/pushes`, { token }), 200);
  return page.items.find((item: { pushId: string }) => item.pushId === pushId)?.status;
}

/** Polls until the push leaves PREPARE (its render is done). */
async function renderedPush(api: Client, token: string, deviceId: string, pushId: string) {
  for (let i = 0; i < 120; i++) {
    if (await statusOf(api, token, deviceId, pushId) !== "PREPARE") return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("the push was never rendered");
}

suite.test(
  "current-push: the chosen push holds the display; the one it replaced waits in the queue",
  async (api) => {
    const { user, mac, key, device } = await claimed(api);
    const token = user.accessToken;
    const empty = expectStatus(await poll(api, mac, key), 200);
    const first = await customPush(api, token, device.id, greyPng(640, 480));
    const a = await nextPicture(api, mac, key, empty.filename);
    assert.ok(a.image_url.includes(first));
    // A second push, rendered, then chosen by the owner (SPEC 3.1: the first returns to QUEUE).
    const second = await customPush(api, token, device.id, greyPng(300, 200));
    await renderedPush(api, token, device.id, second);
    expectStatus(
      await api.post(`/api/devices/${device.id}/current-push`, {
        token,
        body: { pushId: second },
      }),
      200,
    );
    assertEquals(await statusOf(api, token, device.id, first), "QUEUE");
    // Poll after poll, the display keeps the owner's choice: the first is not rotated back in.
    for (let i = 0; i < 3; i++) {
      const b = expectStatus(await poll(api, mac, key), 200);
      assert.ok(b.image_url.includes(second), `poll ${i}: ${b.image_url}`);
      assert.notEqual(b.filename, a.filename);
      // Nothing new waits: the usual interval, not the minute of a waiting push.
      assertEquals(b.refresh_rate, 900);
    }
    assertEquals(await statusOf(api, token, device.id, first), "QUEUE");
    // Asked for explicitly (rule 2, `push/refresh`), the queued one comes back.
    const refreshed = expectStatus(
      await api.post(`/api/devices/${device.id}/push/refresh`, { token }),
      200,
    );
    assertEquals([refreshed.pushId, refreshed.changed], [first, true]);
  },
);

/** `POST /api/log` as the firmware sends it. */
async function sendLog(api: Client, mac: string, key: string, body: unknown, raw?: string) {
  const reply = await api.post("/api/log", {
    headers: { ID: mac, "Access-Token": key, "Content-Type": "application/json" },
    ...(raw === undefined ? { body } : { raw }),
  });
  seen.push(reply);
  return reply;
}

function firmwareEntry(n: number) {
  return {
    id: n,
    message: `wake ${n}`,
    level: "info",
    created_at: 1795686978 + n,
    source_path: "src/bl.cpp",
    source_line: 312,
    wifi_signal: -61,
    wifi_status: "connected",
    refresh_rate: 900,
    sleep_duration: 900,
    firmware_version: "1.6.2",
    special_function: "none",
    battery_voltage: 4.02,
    wake_reason: "timer",
    free_heap_size: 160000,
    max_alloc_size: 90000,
    retry: 0,
  };
}

suite.test("logs: both shapes are kept, newest first, paged; refused cases", async (api) => {
  const { user, mac, key, device } = await claimed(api);
  const token = user.accessToken;
  assert.equal(
    (await sendLog(api, mac, key, { logs: [firmwareEntry(1), firmwareEntry(2)] })).status,
    204,
  );
  assert.equal(
    (await sendLog(api, mac, key, {
      log: { logs_array: [{ ...firmwareEntry(3), level: "error" }] },
    }))
      .status,
    204,
  );
  const path = `/api/devices/${device.id}/logs`;
  const page = expectStatus(await api.get(`${path}?limit=2`, { token }), 200);
  assertEquals(page.items.map((i: { message: string }) => i.message), ["wake 3", "wake 2"]);
  assertEquals(page.items[0].level, "error");
  assertEquals(page.items[0].entry.source_line, 312);
  assert.equal(page.hasMore, true);
  const rest = expectStatus(
    await api.get(`${path}?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`, { token }),
    200,
  );
  assertEquals(rest.items.map((i: { message: string }) => i.message), ["wake 1"]);
  assertEquals(rest.hasMore, false);
  // Refused: a wrong key, another shape, entries that are not objects, a body over 64 KiB.
  expectError(await sendLog(api, mac, "A".repeat(43), { logs: [] }), 401);
  expectError(await sendLog(api, mac, key, { entries: [] }), 400);
  expectError(await sendLog(api, mac, key, { logs: ["text"] }), 400);
  expectError(await sendLog(api, mac, key, null, "{not json"), 400);
  const big = { logs: [{ message: "x".repeat(70 * 1024) }] };
  expectError(await sendLog(api, mac, key, big), 413);
  // Another user's display: 403.
  const other = await registerUser(api);
  expectError(await api.get(path, { token: other.accessToken }), 403);
});

suite.test("logs: the last 1,000 are kept; unbind takes them with the device", async (api) => {
  const { user, mac, key, device } = await claimed(api);
  const token = user.accessToken;
  for (let batch = 0; batch < 3; batch++) {
    const logs = Array.from({ length: 400 }, (_, i) => ({ message: `m${batch * 400 + i}` }));
    assert.equal((await sendLog(api, mac, key, { logs })).status, 204);
  }
  const path = `/api/devices/${device.id}/logs`;
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = expectStatus(
      await api.get(`${path}?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, {
        token,
      }),
      200,
    );
    count += page.items.length;
    cursor = page.nextCursor;
  } while (cursor);
  assert.equal(count, 1000);
  expectStatus(await api.post(`/api/devices/${device.id}/unbind`, { token }), 200);
  // Claimed again (a re-pair) by someone else: none of the first owner's entries.
  const repair = expectStatus(await setup(api, mac), 200);
  const other = await registerUser(api);
  expectStatus(
    await api.post("/api/devices/claim", {
      token: other.accessToken,
      body: { code: repair.friendly_id },
    }),
    200,
  );
  const theirs = expectStatus(await api.get(path, { token: other.accessToken }), 200);
  assertEquals(theirs.items, []);
});

suite.test("enrollment token: a Raspberry Pi client configured with a key", async (api, s) => {
  const user = await registerUser(api);
  const token = user.accessToken;
  const made = expectStatus(
    await api.post("/api/devices/enrollment-tokens", { token, body: { name: "Pi" } }),
    201,
  );
  assert.match(made.token, /^[A-Za-z0-9_-]{43}$/);
  const mac = newMac();
  // The Pi client: ID, lower-case access-token, battery-voltage 100.00, rssi 0; no setup.
  const pi = { ID: mac, "access-token": made.token, "battery-voltage": "100.00", rssi: "0" };
  const first = expectStatus(await call(api, "/api/display", { headers: pi }), 200);
  assertEquals([first.status, first.reset_firmware], [0, false]);
  const devices = expectStatus(await api.get("/api/devices", { token }), 200);
  assertEquals(devices.map((d: { hwId: string }) => d.hwId), [
    mac.replaceAll(":", "").toLowerCase(),
  ]);
  assertEquals(devices[0].battery, 100);
  // The token is now that MAC's key: again fine, another MAC 401, no MAC 401.
  expectStatus(await call(api, "/api/display", { headers: pi }), 200);
  expectError(await call(api, "/api/display", { headers: { ...pi, ID: newMac() } }), 401);
  expectError(await call(api, "/api/display", { headers: { "access-token": made.token } }), 401);
  // An unused token expires; its first poll then is 401.
  const late = expectStatus(
    await api.post("/api/devices/enrollment-tokens", { token, body: {} }),
    201,
  );
  await s.app.services.db.updateTable("displays").set({ code_expires_at: new Date(Date.now() - 1) })
    .where("status", "=", "enrollment").execute();
  expectError(
    await call(api, "/api/display", { headers: { ID: newMac(), "access-token": late.token } }),
    401,
  );
  // Without a user credential: 401.
  expectError(await api.post("/api/devices/enrollment-tokens", { body: {} }), 401);
});

suite.test("cmd on a display is 409", async (api) => {
  const { user, device } = await claimed(api);
  expectError(
    await api.post(`/api/devices/${device.id}/cmd`, {
      token: user.accessToken,
      body: { kind: "text", text: "hello" },
    }),
    409,
  );
});

suite.test(
  "Scene delivery: a stored Scene drawn for the display's panel, no AI call",
  async (api, server) => {
    const acct = await account(api, "scene");
    const mac = newMac();
    const s = expectStatus(await setup(api, mac), 200);
    const claim = expectStatus(
      await api.post("/api/devices/claim", {
        token: acct.accessToken,
        body: { code: s.friendly_id },
      }),
      200,
    );
    const device = claim.device;
    const key = s.api_key;
    expectStatus(
      await api.put(`/api/devices/${device.id}/display-profile`, {
        token: acct.accessToken,
        body: { model: "inkplate_10" },
      }),
      200,
    );
    const empty = expectStatus(await poll(api, mac, key), 200);
    const { presentation } = await hardcodePresentation(acct, acct.sdk);
    for (const mount of [acct.sdk, acct.app]) {
      const path = `/presentations/${presentation.id}/deliveries`;
      const delivered = expectStatus(
        await acct.call(mount, "POST", path, { body: { displayId: device.id } }),
        202,
      );
      assert.match(delivered.pushId, /^[0-9a-f-]{36}$/);
    }
    const shown = await nextPicture(api, mac, key, empty.filename);
    const png = decodePng(await image(shown.image_url));
    assertEquals([png.width, png.height, png.depth], [1200, 825, 2]);
    // An MQTT device of the same user gets the same Scene in its 800x480 formats.
    const nfc = await createDevice(server, acct.userId);
    expectStatus(
      await acct.call(acct.sdk, "POST", `/presentations/${presentation.id}/deliveries`, {
        body: { displayId: nfc.id },
      }),
      202,
    );
    let raw2: Reply | undefined;
    for (let i = 0; i < 120 && raw2?.status !== 200; i++) {
      if (i) await new Promise((r) => setTimeout(r, 250));
      raw2 = await api.get(`/api/devices/${nfc.id}/push?format=raw2`, { token: acct.accessToken });
    }
    const bytes = new Uint8Array(await (await fetch(expectStatus(raw2!, 200).url)).arrayBuffer());
    assert.equal(bytes.length, 48000);
    // Refused: another user's device and presentation, an unknown presentation.
    const other = await account(api, "scene2");
    const theirs = await claimed(api);
    const path = `/presentations/${presentation.id}/deliveries`;
    expectCode(
      await acct.call(acct.sdk, "POST", path, { body: { displayId: theirs.device.id } }),
      404,
      "not_found",
    );
    expectCode(
      await other.call(other.sdk, "POST", path, { body: { displayId: theirs.device.id } }),
      404,
      "presentation_not_found",
    );
  },
);

suite.test(
  "reset: only the owner's explicit reset answers reset_firmware true, once",
  async (api, s) => {
    const { user, mac, key, device } = await claimed(api);
    const token = user.accessToken;
    const path = `/api/devices/${device.id}/reset`;
    // Refused: no token, another user's display, an unknown device, an MQTT device, a bad id.
    expectError(await api.post(path, {}), 401);
    const other = await registerUser(api);
    expectError(await api.post(path, { token: other.accessToken }), 403);
    expectError(await api.post(`/api/devices/${crypto.randomUUID()}/reset`, { token }), 404);
    const mqttDevice = await createDevice(s, user.user.id);
    expectError(await api.post(`/api/devices/${mqttDevice.id}/reset`, { token }), 409);
    expectError(await api.post("/api/devices/not-a-uuid/reset", { token }), 400);
    // Refused asks change nothing: the next poll is an ordinary one.
    assert.equal(expectStatus(await poll(api, mac, key), 200).reset_firmware, false);

    expectStatus(await api.post(path, { token }), 200);
    const reset = await poll(api, mac, key);
    askedResets.add(reset);
    const body = expectStatus(reset, 200);
    assertEquals([body.status, body.reset_firmware], [0, true]);
    // Once: the poll after it is ordinary again (a display that did not wipe is not asked twice).
    assert.equal(expectStatus(await poll(api, mac, key), 200).reset_firmware, false);
    // The wiped display sets up again with its MAC: a re-pair, its old key valid until claimed.
    const again = expectStatus(await setup(api, mac), 200);
    assert.match(again.friendly_id, /^[A-Z0-9]{6}$/);
    assert.equal(expectStatus(await poll(api, mac, key), 200).reset_firmware, false);
  },
);

suite.test("setup: over DISPLAY_SETUPS_PER_MINUTE from one address is 429 with Retry-After", async (api) => {
  let limited: Reply | undefined;
  // Up to twice the limit and more: the fixed window may turn once while the loop runs (the
  // setups before it count in the old window), never twice in 81 quick setups.
  for (let i = 0; i < 90 && !limited; i++) {
    const reply = await setup(api, newMac());
    if (reply.status === 429) limited = reply;
    else expectStatus(reply, 200);
  }
  assert.ok(limited, "no 429 within 90 setups");
  expectError(limited, 429);
  assert.match(limited.headers.get("retry-after") ?? "", /^\d+$/);
});

suite.test("reset: no other code sets reset_firmware true or a body status 500", async () => {
  // The source, comments aside: one place answers `reset_firmware: true` (the owner's reset,
  // above), and nothing writes a body status of 500.
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL("../src/domains/displays/", import.meta.url))) {
    if (!entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) continue;
    const text = await Deno.readTextFile(
      new URL(`../src/domains/displays/${entry.name}`, import.meta.url),
    );
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "")
      .replace(/"[^"\n]*"/g, '""');
    for (const m of code.matchAll(/reset_firmware:\s*true|status:\s*500/g)) {
      found.push(`${entry.name}: ${m[0]}`);
    }
  }
  assertEquals(found, ["polls.ts: reset_firmware: true"]);
});

suite.test("never wipe: no display reply had body status 500 or reset_firmware true", () => {
  assert.ok(seen.length > 30);
  assertEquals(askedResets.size, 1);
  for (const reply of seen) {
    if (askedResets.has(reply)) continue;
    assert.notEqual(reply.status, 500);
    const body = reply.body as Record<string, unknown> | null;
    if (body && typeof body === "object") {
      assert.notEqual(body.status, 500, JSON.stringify(body));
      assert.notEqual(body.reset_firmware, true, JSON.stringify(body));
    }
  }
  return Promise.resolve();
});

suite.end();

/** Makes a pending display's claim code expired. */
async function expire(s: TestServer, code: string) {
  await s.app.services.db.updateTable("displays")
    .set({ code_expires_at: new Date(Date.now() - 1000) })
    .where("friendly_id", "=", code).execute();
}
