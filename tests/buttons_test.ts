/**
 * Issue 24, button actions of pull displays: the owner chooses per display what a press does,
 * every poll announces it in `special_function` (TRMNL's names), and the poll that reports a
 * press (header `special_function: true`) carries it out: `rewind` the previous push, `next` the
 * following one (wrapping), `identify` a screen naming the display. Refused cases: another
 * user's device 403, no token 401, not a display 404, a bad action 400.
 */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { claimedDisplay } from "./helpers/displays.ts";
import { createDevice, insertPush } from "./helpers/devices.ts";
import type { TestServer } from "./helpers/server.ts";

const suite = serverSuite("buttons", { DISPLAY_SETUPS_PER_MINUTE: "100" });

type Display = Awaited<ReturnType<typeof claimedDisplay>>;

function poll(api: Client, d: Display, press = false) {
  return api.get("/api/display", {
    headers: {
      ID: d.mac,
      "Access-Token": d.key,
      "FW-Version": "1.6.2",
      Model: "og",
      ...(press ? { special_function: "true", "Update-Source": "button" } : {}),
    },
  });
}

function setAction(api: Client, d: Display, action: string) {
  return api.put(`/api/devices/${d.device.id}/button`, {
    token: d.user.accessToken,
    body: { action },
  });
}

/** A display that has shown three pushes, oldest first; the newest is on screen. */
async function withHistory(api: Client, server: TestServer) {
  const display = await claimedDisplay(api, "C4");
  const t = Date.now() - 60_000;
  const pushes = [];
  for (let i = 0; i < 3; i++) {
    pushes.push(
      await insertPush(server, display.device, display.user.user.id, {
        createdAt: new Date(t + i * 1000),
      }),
    );
  }
  // Each poll rotates the next queued push in; after three, all were shown.
  for (let i = 0; i < 3; i++) {
    assert.equal(expectStatus(await poll(api, display), 200).filename, pushes[i]);
  }
  return { display, pushes };
}

suite.test(
  "set and get: the owner chooses; refused for others, non-displays, bad actions",
  async (api, server) => {
    const d = await claimedDisplay(api, "C4");
    const path = `/api/devices/${d.device.id}/button`;
    assertEquals(expectStatus(await api.get(path, { token: d.user.accessToken }), 200), {
      action: "none",
    });
    for (const action of ["rewind", "next", "identify", "none"]) {
      assertEquals(expectStatus(await setAction(api, d, action), 200), { action });
      assertEquals(expectStatus(await api.get(path, { token: d.user.accessToken }), 200), {
        action,
      });
    }
    const other = await registerUser(api);
    expectError(await api.put(path, { token: other.accessToken, body: { action: "rewind" } }), 403);
    expectError(await api.get(path, { token: other.accessToken }), 403);
    expectError(await api.put(path, { body: { action: "rewind" } }), 401);
    expectError(await setAction(api, d, "sleep"), 400);
    expectError(await api.put(path, { token: d.user.accessToken, body: {} }), 400);
    expectError(
      await api.put(`/api/devices/${crypto.randomUUID()}/button`, {
        token: d.user.accessToken,
        body: { action: "rewind" },
      }),
      404,
    );
    // An MQTT device of the same user has no button to configure here.
    const mqtt = await createDevice(server, d.user.user.id);
    expectError(
      await api.put(`/api/devices/${mqtt.id}/button`, {
        token: d.user.accessToken,
        body: { action: "rewind" },
      }),
      404,
    );
  },
);

suite.test("every poll announces the action in special_function, by TRMNL's names", async (api) => {
  const d = await claimedDisplay(api, "C4");
  assert.equal(expectStatus(await poll(api, d), 200).special_function, "none");
  const names = { rewind: "rewind", next: "restart_playlist", identify: "identify", none: "none" };
  for (const [action, announced] of Object.entries(names)) {
    expectStatus(await setAction(api, d, action), 200);
    assert.equal(expectStatus(await poll(api, d), 200).special_function, announced);
  }
});

suite.test("rewind: a press shows the previous push, down to the oldest", async (api, server) => {
  const { display, pushes } = await withHistory(api, server);
  expectStatus(await setAction(api, display, "rewind"), 200);
  // A poll without a press changes nothing.
  assert.equal(expectStatus(await poll(api, display), 200).filename, pushes[2]);
  assert.equal(expectStatus(await poll(api, display, true), 200).filename, pushes[1]);
  // The next ordinary poll stays there (the one left is not queued again).
  assert.equal(expectStatus(await poll(api, display), 200).filename, pushes[1]);
  assert.equal(expectStatus(await poll(api, display, true), 200).filename, pushes[0]);
  assert.equal(expectStatus(await poll(api, display, true), 200).filename, pushes[0]);
  const current = expectStatus(
    await api.get(`/api/devices/${display.device.id}/push`, { token: display.user.accessToken }),
    200,
  );
  assert.equal(current.pushId, pushes[0]);
});

suite.test(
  "next: a press shows the following push, the oldest again past the newest",
  async (api, server) => {
    const { display, pushes } = await withHistory(api, server);
    expectStatus(await setAction(api, display, "next"), 200);
    assert.equal(expectStatus(await poll(api, display, true), 200).filename, pushes[0]);
    assert.equal(expectStatus(await poll(api, display, true), 200).filename, pushes[1]);
    assert.equal(expectStatus(await poll(api, display), 200).filename, pushes[1]);
    assert.equal(expectStatus(await poll(api, display, true), 200).filename, pushes[2]);
  },
);

suite.test(
  "identify: a press shows a screen naming the display for one poll",
  async (api, server) => {
    const { display, pushes } = await withHistory(api, server);
    expectStatus(await setAction(api, display, "identify"), 200);
    const shown = expectStatus(await poll(api, display, true), 200);
    assert.match(shown.filename, /^[0-9a-f]{64}$/);
    assert.equal(shown.status, 0);
    assert.equal(shown.reset_firmware, false);
    const res = await fetch(shown.image_url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    await res.body?.cancel();
    assert.equal(expectStatus(await poll(api, display), 200).filename, pushes[2]);
  },
);

suite.test("none: a press is an ordinary poll", async (api, server) => {
  const { display, pushes } = await withHistory(api, server);
  assert.equal(expectStatus(await poll(api, display, true), 200).filename, pushes[2]);
});

suite.test("a display leaving its owner forgets the action", async (api, server) => {
  const d = await claimedDisplay(api, "C4");
  expectStatus(await setAction(api, d, "rewind"), 200);
  expectStatus(
    await api.post(`/api/devices/${d.device.id}/unbind`, { token: d.user.accessToken }),
    200,
  );
  const row = await server.app.services.db.selectFrom("display_buttons").selectAll()
    .where("device_id", "=", d.device.id).executeTakeFirst();
  assertEquals(row, undefined);
});

suite.end();
