/**
 * Displays that send no key (CONTRACT.md "Screens that keep themselves current", issue 37):
 * TRMNL's Raspberry Pi client pointed at a custom server sends only `ID` (its MAC), never an
 * `Access-Token`, and never calls `/api/setup`. Spoken to as that client speaks (its header names
 * and cases, a plain GET of `image_url`), with every refused case: a MAC alone never shows the
 * owner's pictures unless the owner turned `keyless` on.
 */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser, type Reply } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { newMac } from "./helpers/displays.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import { customPush, greyPng } from "./helpers/custom_push.ts";

const suite = serverSuite("keyless", { DISPLAY_SETUPS_PER_MINUTE: "40" });

const PREFIX = "C3";

/** A poll as `trmnl-display` sends it to a custom server without `TRMNL_API_KEY`. */
function keylessPoll(api: Client, mac: string, extra: Record<string, string> = {}) {
  return api.get("/api/display", {
    headers: {
      ID: mac,
      "Content-Type": "application/json",
      "battery-voltage": "100.00",
      rssi: "0",
      "User-Agent": "trmnl-display/0.5.0",
      ...extra,
    },
  });
}

const setup = (api: Client, mac: string) =>
  api.get("/api/setup", { headers: { ID: mac, Model: "og" } });

const keyedPoll = (api: Client, mac: string, key: string) =>
  api.get("/api/display", { headers: { ID: mac, "Access-Token": key, Model: "og" } });

/** The plain GET the Pi client makes of `image_url`: the picture's bytes. */
async function picture(url: string): Promise<Uint8Array<ArrayBuffer>> {
  const res = await fetchChecked(url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  return new Uint8Array(await res.arrayBuffer());
}

/** A display first seen by a key-less poll, then claimed by a new user through setup's code. */
async function claimedKeyless(api: Client) {
  const user = await registerUser(api);
  const mac = newMac(PREFIX);
  expectStatus(await keylessPoll(api, mac), 200);
  const s = expectStatus(await setup(api, mac), 200);
  const { device } = expectStatus(
    await api.post("/api/devices/claim", {
      token: user.accessToken,
      body: { code: s.friendly_id },
    }),
    200,
  );
  return { user, mac, key: s.api_key as string, device };
}

/** Polls with `poll` until the reply's `filename` is not `filename`. */
async function changed(poll: () => Promise<Reply>, filename: string) {
  for (let i = 0; i < 120; i++) {
    const reply = expectStatus(await poll(), 200);
    if (reply.filename !== filename) return reply;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("the picture never changed");
}

suite.test("an unknown MAC polling without a key gets a pending display and its claim screen", async (api) => {
  const mac = newMac(PREFIX);
  const first = expectStatus(await keylessPoll(api, mac), 200);
  assertEquals([first.status, first.reset_firmware, first.refresh_rate], [202, false, 60]);
  const claimScreen = await picture(first.image_url);
  // The same pending display at the next poll: the same code, the same screen.
  const again = expectStatus(await keylessPoll(api, mac), 200);
  assertEquals([again.status, again.filename], [202, first.filename]);
  // Setup of the MAC answers that display's code: its claim screen is the one the poll showed.
  const s = expectStatus(await setup(api, mac), 200);
  assertEquals(await picture(s.image_url), claimScreen);
  // The MAC written any way the firmware or a person writes it is the same display.
  const dashed = mac.toLowerCase().replaceAll(":", "-");
  assertEquals(expectStatus(await keylessPoll(api, dashed), 200).filename, first.filename);
  // Claimed with that code, by its owner: the display the key-less polls made is theirs.
  const user = await registerUser(api);
  const claim = expectStatus(
    await api.post("/api/devices/claim", {
      token: user.accessToken,
      body: { code: s.friendly_id },
    }),
    200,
  );
  assertEquals(claim.device.hwId, mac.replaceAll(":", "").toLowerCase());
  // What the key-less polls reported while pending is its first state (battery 100.00 → 100).
  assertEquals(claim.device.battery, 100);
  // The key setup answered is the display's key.
  assertEquals(expectStatus(await keyedPoll(api, mac, s.api_key), 200).status, 0);
});

suite.test("claimed, keyless off (the default): a screen saying how to give the client its key, never the pictures", async (api) => {
  const { user, mac, key, device } = await claimedKeyless(api);
  const token = user.accessToken;
  const profilePath = `/api/devices/${device.id}/display-profile`;
  assertEquals(expectStatus(await api.get(profilePath, { token }), 200).keyless, false);
  const empty = expectStatus(await keyedPoll(api, mac, key), 200);
  const pushId = await customPush(api, token, device.id, greyPng(640, 480));
  const shown = await changed(() => keyedPoll(api, mac, key), empty.filename);
  assertEquals(new URL(shown.image_url).pathname, `/api/display/image/${pushId}`);
  const health = async () =>
    expectStatus(await api.get(`/api/devices/${device.id}/health`, { token }), 200);
  const before = await health();

  const help = expectStatus(await keylessPoll(api, mac, { "battery-voltage": "3.00" }), 200);
  assertEquals([help.status, help.reset_firmware, help.refresh_rate], [202, false, 60]);
  assert.notEqual(help.filename, shown.filename);
  assert.ok(!new URL(help.image_url).pathname.startsWith("/api/display/image/"), help.image_url);
  const helpScreen = await picture(help.image_url);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", helpScreen)).toHex();
  assertEquals(digest, help.filename);
  assert.notDeepEqual(helpScreen, await picture(shown.image_url));
  // Nothing of the key-less poll was written: its battery reading is not the device's.
  assertEquals((await health()).battery, before.battery);
  // One screen for every display, whoever owns it.
  const other = await claimedKeyless(api);
  assertEquals(expectStatus(await keylessPoll(api, other.mac), 200).filename, help.filename);
  // The key still shows the push.
  assertEquals(expectStatus(await keyedPoll(api, mac, key), 200).filename, shown.filename);
});

suite.test("claimed, keyless on: the MAC alone shows the pictures; off again, the help screen", async (api) => {
  const { user, mac, key, device } = await claimedKeyless(api);
  const token = user.accessToken;
  const profilePath = `/api/devices/${device.id}/display-profile`;
  const empty = expectStatus(await keyedPoll(api, mac, key), 200);
  await customPush(api, token, device.id, greyPng(640, 480));
  const shown = await changed(() => keyedPoll(api, mac, key), empty.filename);
  const help = expectStatus(await keylessPoll(api, mac), 200);

  const on = expectStatus(await api.put(profilePath, { token, body: { keyless: true } }), 200);
  assertEquals([on.keyless, on.model, on.width], [true, "og", 800]);
  assertEquals(expectStatus(await api.get(profilePath, { token }), 200).keyless, true);
  // Another field's PUT leaves it as it is.
  const rotated = expectStatus(
    await api.put(profilePath, { token, body: { refreshRate: 600 } }),
    200,
  );
  assertEquals([rotated.keyless, rotated.refreshRate], [true, 600]);

  const served = expectStatus(await keylessPoll(api, mac, { "battery-voltage": "3.50" }), 200);
  assertEquals([served.status, served.filename, served.refresh_rate], [0, shown.filename, 600]);
  const png = await picture(served.image_url);
  assertEquals(new Uint8Array(await crypto.subtle.digest("SHA-256", png)).toHex(), shown.filename);
  // Served as with its key: its report is the device's.
  const health = expectStatus(await api.get(`/api/devices/${device.id}/health`, { token }), 200);
  assertEquals(health.battery, 42);
  // A push made now reaches it without a key.
  await customPush(api, token, device.id, greyPng(320, 240));
  const next = await changed(() => keylessPoll(api, mac), shown.filename);
  assertEquals(next.status, 0);

  const off = expectStatus(await api.put(profilePath, { token, body: { keyless: false } }), 200);
  assertEquals(off.keyless, false);
  const refused = expectStatus(await keylessPoll(api, mac), 200);
  assertEquals([refused.status, refused.filename], [202, help.filename]);
});

suite.test("refused: an empty or malformed Access-Token is 401, keyless on or not", async (api) => {
  const { user, mac, device } = await claimedKeyless(api);
  const token = user.accessToken;
  const profilePath = `/api/devices/${device.id}/display-profile`;
  expectStatus(await api.put(profilePath, { token, body: { keyless: true } }), 200);
  assertEquals(expectStatus(await keylessPoll(api, mac), 200).status, 0);
  for (const value of ["", "   ", "not a key!", "A".repeat(43)]) {
    expectError(await keylessPoll(api, mac, { "Access-Token": value }), 401);
    // The Kindle client's lower-case name is the same header.
    expectError(await keylessPoll(api, mac, { "access-token": value }), 401);
  }
  // An unknown MAC with an empty key makes no pending display: still 401.
  const fresh = newMac(PREFIX);
  expectError(await keylessPoll(api, fresh, { "Access-Token": "" }), 401);
  // No key and no usable MAC: 401.
  expectError(await api.get("/api/display", { headers: { rssi: "0" } }), 401);
  expectError(await keylessPoll(api, "not-a-mac"), 401);
  // Key-less polls post no logs.
  expectError(await api.post("/api/log", { headers: { ID: mac }, body: { logs: [] } }), 401);
});

suite.test("refused: keyless on another user's display, an unknown device, anything but a JSON boolean", async (api) => {
  const { user, mac, device } = await claimedKeyless(api);
  const stranger = await registerUser(api);
  const path = `/api/devices/${device.id}/display-profile`;
  // Another user's device is refused as on every device route (403), and nothing changes.
  expectError(await api.put(path, { token: stranger.accessToken, body: { keyless: true } }), 403);
  expectError(
    await api.put(`/api/devices/${crypto.randomUUID()}/display-profile`, {
      token: stranger.accessToken,
      body: { keyless: true },
    }),
    404,
  );
  // Only a JSON boolean: the strings a form or a shell might send are 400, never "on".
  for (const keyless of ["yes", "false", "true", 1, null]) {
    expectError(await api.put(path, { token: user.accessToken, body: { keyless } }), 400);
  }
  assertEquals(
    expectStatus(await api.get(path, { token: user.accessToken }), 200).keyless,
    false,
  );
  assertEquals(expectStatus(await keylessPoll(api, mac), 200).status, 202);
  expectError(await api.put(path, { body: { keyless: true } }), 401);
});

suite.test("a display its owner let go (unbind) is no one's: a key-less poll gets a claim screen", async (api) => {
  const { user, mac, device } = await claimedKeyless(api);
  const token = user.accessToken;
  expectStatus(
    await api.put(`/api/devices/${device.id}/display-profile`, { token, body: { keyless: true } }),
    200,
  );
  expectStatus(await api.post(`/api/devices/${device.id}/unbind`, { token }), 200);
  const pending = expectStatus(await keylessPoll(api, mac), 200);
  assertEquals(pending.status, 202);
  // Its new code is the one setup answers; whoever holds it (the next owner) claims it.
  const s = expectStatus(await setup(api, mac), 200);
  assertEquals(await picture(s.image_url), await picture(pending.image_url));
  const buyer = await registerUser(api);
  const bought = expectStatus(
    await api.post("/api/devices/claim", {
      token: buyer.accessToken,
      body: { code: s.friendly_id },
    }),
    200,
  );
  // The new owner has not turned keyless on: the MAC alone shows their help screen.
  const profile = expectStatus(
    await api.get(`/api/devices/${bought.device.id}/display-profile`, {
      token: buyer.accessToken,
    }),
    200,
  );
  assertEquals(profile.keyless, false);
  assertEquals(expectStatus(await keylessPoll(api, mac), 200).status, 202);
});

// Last: it spends this source's setups for the minute.
suite.test("refused: key-less pending displays count in the setup limit per source (429)", async (api) => {
  const { user, mac, device } = await claimedKeyless(api);
  expectStatus(
    await api.put(`/api/devices/${device.id}/display-profile`, {
      token: user.accessToken,
      body: { keyless: true },
    }),
    200,
  );
  // Up to twice the limit and more: the fixed window may turn once while the loop runs.
  let limited: Reply | undefined;
  for (let round = 0; round < 2 && !limited; round++) {
    for (let i = 0; i < 90 && !limited; i++) {
      const reply = await keylessPoll(api, newMac(PREFIX));
      if (reply.status === 429) limited = reply;
      else assertEquals(expectStatus(reply, 200).status, 202);
    }
    // The same window as setup's: a setup from here is refused too (unless it just turned).
    if (limited && (await setup(api, newMac(PREFIX))).status !== 429) limited = undefined;
  }
  assert.ok(limited, "no 429 within 90 key-less polls of new MACs");
  expectError(limited, 429);
  assert.match(limited.headers.get("retry-after") ?? "", /^\d+$/);
  // A claimed display's key-less polls make nothing and are not counted: still served.
  assertEquals(expectStatus(await keylessPoll(api, mac), 200).status, 0);
});

suite.end();

const closed = serverSuite("keyless outside DISPLAY_KEYLESS_NETWORKS", {
  DISPLAY_KEYLESS_NETWORKS: "10.0.0.0/8,fc00::/7",
});

closed.test("refused: a key-less poll from outside the networks is 401 and makes nothing", async (api) => {
  const mac = newMac(PREFIX);
  expectError(await keylessPoll(api, mac), 401);
  // The display set up and claimed as always; keyless on changes nothing from here.
  const user = await registerUser(api);
  const s = expectStatus(await setup(api, mac), 200);
  const { device } = expectStatus(
    await api.post("/api/devices/claim", {
      token: user.accessToken,
      body: { code: s.friendly_id },
    }),
    200,
  );
  expectStatus(
    await api.put(`/api/devices/${device.id}/display-profile`, {
      token: user.accessToken,
      body: { keyless: true },
    }),
    200,
  );
  expectError(await keylessPoll(api, mac), 401);
  assertEquals(expectStatus(await keyedPoll(api, mac, s.api_key), 200).status, 0);
});

closed.end();
