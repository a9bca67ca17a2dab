// deno-lint-ignore-file no-explicit-any -- the fake provider's posts are untyped JSON
/**
 * CONTRACT.md "Displays behind another provider, and image feeds": `POST /api/devices/external`,
 * an `image_feed`'s secret URL (ETag, 304, rotation, seen, published on fetch) and a
 * `trmnl_webhook`'s posts to a local server speaking TRMNL's webhook wire.
 */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { customPush } from "./helpers/custom_push.ts";
import { eventually } from "./helpers/mqtt.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import { pngInfo } from "./helpers/targetless.ts";
import { createDevice } from "./helpers/devices.ts";
import type { TestServer } from "./helpers/server.ts";

const suite = serverSuite("providers", {
  // The TRMNL stand-in listens on loopback; one post a second keeps the test short.
  WEBHOOK_ALLOW_PRIVATE: "1",
  PROVIDER_POSTS_PER_HOUR: "3600",
  DISPLAYS_PER_USER: "3",
});

/** The feed URL's path on the test server (PUBLIC_BASE_URL may name another origin). */
function feedOf(server: TestServer, feedUrl: string, headers: Record<string, string> = {}) {
  return fetchChecked(`${server.url}${new URL(feedUrl).pathname}`, { headers });
}

async function sha256(bytes: Uint8Array) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>))
    .toHex();
}

/** A local server speaking TRMNL's private plugin webhook: records each post's JSON. */
function fakeTrmnl() {
  const posts: Array<{ path: string; body: any; type: string | null }> = [];
  let status = 200;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    posts.push({ path, body: await req.json(), type: req.headers.get("content-type") });
    return new Response(status === 200 ? '{"message":null}' : "", { status });
  });
  const plugin = crypto.randomUUID();
  return {
    posts,
    webhookUrl: `http://127.0.0.1:${server.addr.port}/api/custom_plugins/${plugin}`,
    plugin,
    host: `127.0.0.1:${server.addr.port}`,
    failWith(code: number) {
      status = code;
    },
    close: () => server.shutdown(),
  };
}

suite.test(
  "an image feed: created with its profile, the picture by its secret URL, ETag and 304",
  async (api, s) => {
    const alice = await registerUser(api, "feed");
    const token = alice.accessToken;
    const made = expectStatus(
      await api.post("/api/devices/external", {
        token,
        body: { name: "Hall panel", provider: "image_feed", width: 400, height: 300, bitDepth: 2 },
      }),
      201,
    );
    const { device, feedUrl } = made;
    assertEquals([device.transport, device.nickname, device.ownerId], [
      "image_feed",
      "Hall panel",
      alice.user.id,
    ]);
    assert.match(feedUrl, /\/api\/feeds\/[A-Za-z0-9_-]{43}\.png$/);
    const profile = expectStatus(
      await api.get(`/api/devices/${device.id}/display-profile`, { token }),
      200,
    );
    assertEquals([profile.width, profile.height, profile.bitDepth], [400, 300, 2]);
    // Listed among the caller's devices, with its transport.
    const list = expectStatus(await api.get("/api/devices", { token }), 200);
    assertEquals(list.find((d: { id: string }) => d.id === device.id)?.transport, "image_feed");

    // Nothing pushed yet: the "nothing yet" screen, drawn for the profile.
    const empty = await feedOf(s, feedUrl);
    assertEquals([empty.status, empty.headers.get("content-type")], [200, "image/png"]);
    const emptyPng = new Uint8Array(await empty.arrayBuffer());
    const info = pngInfo(emptyPng);
    assertEquals([info.width, info.height, info.bitDepth, info.colorType], [400, 300, 2, 0]);
    const emptyTag = empty.headers.get("etag")!;
    assertEquals(emptyTag, `"${await sha256(emptyPng)}"`);
    const same = await feedOf(s, feedUrl, { "if-none-match": emptyTag });
    assertEquals(same.status, 304);
    // The fetch is the device seen.
    const seen = expectStatus(await api.get(`/api/devices/${device.id}`, { token }), 200);
    assert.ok(seen.lastSeenAt, JSON.stringify(seen));
    assertEquals(seen.online, true);

    // A push: rendered for the profile, published by the next fetch, marked fetched.
    const pushId = await customPush(api, token, device.id);
    const history = async () => {
      const page = expectStatus(await api.get(`/api/devices/${device.id}/pushes`, { token }), 200);
      return page.items.find((item: { pushId: string }) => item.pushId === pushId);
    };
    await eventually(async () => (await history()).status === "QUEUE", "the render");
    const shown = await feedOf(s, feedUrl, { "if-none-match": emptyTag });
    assertEquals(shown.status, 200);
    const png = new Uint8Array(await shown.arrayBuffer());
    const pushed = pngInfo(png);
    assertEquals([pushed.width, pushed.height, pushed.bitDepth], [400, 300, 2]);
    const tag = shown.headers.get("etag")!;
    assert.ok(tag !== emptyTag);
    assertEquals(tag, `"${await sha256(png)}"`);
    const published = await history();
    assertEquals(published.status, "PUBLISHED");
    assert.ok(published.fetchedAt, JSON.stringify(published));
    const health = expectStatus(await api.get(`/api/devices/${device.id}/health`, { token }), 200);
    assertEquals(health.latestPushId, pushId);
    // Unchanged: 304 (a weak or listed tag too), and the same push stays.
    for (const header of [tag, `W/${tag}`, `"other", ${tag}`]) {
      assertEquals((await feedOf(s, feedUrl, { "if-none-match": header })).status, 304, header);
    }
    assertEquals((await feedOf(s, feedUrl, { "if-none-match": '"other"' })).status, 200);

    // No commands: a picture feed has no channel for them.
    expectError(
      await api.post(`/api/devices/${device.id}/cmd`, {
        token,
        body: { kind: "text", text: "hi" },
      }),
      409,
    );
  },
);

suite.test(
  "a feed token rotates: the old URL is 404 at once; unknown and malformed tokens 404",
  async (api, s) => {
    const alice = await registerUser(api, "rotate");
    const token = alice.accessToken;
    const { device, feedUrl } = expectStatus(
      await api.post("/api/devices/external", {
        token,
        body: { name: "Kiosk", provider: "image_feed" },
      }),
      201,
    );
    assertEquals((await feedOf(s, feedUrl)).status, 200);
    const rotated = expectStatus(
      await api.post(`/api/devices/${device.id}/feed-token`, { token }),
      200,
    );
    assert.ok(rotated.feedUrl !== feedUrl);
    assertEquals((await feedOf(s, feedUrl)).status, 404);
    assertEquals((await feedOf(s, rotated.feedUrl)).status, 200);
    // Another token of the right shape, one of the wrong shape, one too long: 404 alike.
    const random = `/api/feeds/${"A".repeat(43)}.png`;
    for (const path of [random, "/api/feeds/short.png", `/api/feeds/${"x".repeat(200)}.png`]) {
      assertEquals((await fetchChecked(`${s.url}${path}`)).status, 404, path);
    }

    // Another user: the device is not theirs (403 as for every device, SPEC 4.5), the feed-token
    // route too; their own feed's token does not open this one.
    const bob = await registerUser(api, "rotatebob");
    expectError(await api.get(`/api/devices/${device.id}`, { token: bob.accessToken }), 403);
    expectError(
      await api.post(`/api/devices/${device.id}/feed-token`, { token: bob.accessToken }),
      403,
    );
    expectError(
      await api.post(`/api/devices/${crypto.randomUUID()}/feed-token`, { token }),
      404,
    );
    expectError(await api.post(`/api/devices/${device.id}/feed-token`), 401);
    assertEquals((await feedOf(s, rotated.feedUrl)).status, 200);

    // Not a feed: an MQTT device of the caller.
    const mqtt = await createDevice(s, alice.user.id);
    expectError(await api.post(`/api/devices/${mqtt.id}/feed-token`, { token }), 409);

    // Unbound: the feed stops.
    expectStatus(await api.post(`/api/devices/${device.id}/unbind`, { token }), 200);
    assertEquals((await feedOf(s, rotated.feedUrl)).status, 404);
  },
);

suite.test("creation refuses an unknown provider, bad sizes and bad credentials (400), big bodies (413)", async (api) => {
  const alice = await registerUser(api, "refuse");
  const token = alice.accessToken;
  const create = (body: unknown) => api.post("/api/devices/external", { token, body });
  const refused: unknown[] = [
    { name: "x", provider: "smoke_signal" },
    { name: "x" },
    { name: "", provider: "image_feed" },
    { name: "x", provider: "image_feed", width: 15 },
    { name: "x", provider: "image_feed", height: 4097 },
    { name: "x", provider: "image_feed", width: 4096, height: 4096 },
    { name: "x", provider: "image_feed", width: 400.5 },
    { name: "x", provider: "image_feed", bitDepth: 8 },
    { name: "x", provider: "image_feed", credentials: { webhookUrl: "https://example.com/" } },
    { name: "x", provider: "trmnl_webhook" },
    { name: "x", provider: "trmnl_webhook", credentials: {} },
    { name: "x", provider: "trmnl_webhook", credentials: { webhookUrl: "not a url" } },
    { name: "x", provider: "trmnl_webhook", credentials: { webhookUrl: "ftp://usetrmnl.com/" } },
    {
      name: "x",
      provider: "trmnl_webhook",
      credentials: { webhookUrl: "https://usetrmnl.com/somewhere/else" },
    },
    {
      name: "x",
      provider: "trmnl_webhook",
      credentials: { webhookUrl: "https://user:pw@usetrmnl.com/api/custom_plugins/abcdef12" },
    },
  ];
  for (const body of refused) expectError(await create(body), 400, undefined);
  expectError(
    await api.post("/api/devices/external", {
      token,
      raw: "{not json",
      headers: { "content-type": "application/json" },
    }),
    400,
  );
  expectError(
    await api.post("/api/devices/external", {
      token,
      raw: JSON.stringify({ name: "x", provider: "image_feed", pad: "x".repeat(1_100_000) }),
      headers: { "content-type": "application/json" },
    }),
    413,
  );
  expectError(
    await api.post("/api/devices/external", { body: { name: "x", provider: "image_feed" } }),
    401,
  );
  // Nothing was made.
  assertEquals(expectStatus(await api.get("/api/devices", { token }), 200).length, 0);
});

suite.test(
  "a TRMNL webhook display: each published push posted as merge variables, sealed credentials",
  async (api, s) => {
    const trmnl = fakeTrmnl();
    try {
      const alice = await registerUser(api, "trmnl");
      const token = alice.accessToken;
      const made = expectStatus(
        await api.post("/api/devices/external", {
          token,
          body: {
            name: "Office TRMNL",
            provider: "trmnl_webhook",
            credentials: { webhookUrl: trmnl.webhookUrl },
          },
        }),
        201,
      );
      const { device } = made;
      assertEquals(made.feedUrl, undefined);
      assertEquals(device.transport, "trmnl_webhook");
      // Never answered back, never stored in the clear.
      assert.ok(!JSON.stringify(made).includes(trmnl.plugin));
      const row = await s.app.services.db.selectFrom("display_providers").selectAll()
        .where("device_id", "=", device.id).executeTakeFirstOrThrow();
      assert.ok(row.webhook_sealed && !row.webhook_sealed.includes(trmnl.plugin));
      const health = expectStatus(
        await api.get(`/api/devices/${device.id}/health`, { token }),
        200,
      );
      assertEquals(health.provider, {
        name: "trmnl_webhook",
        host: trmnl.host,
        lastPostAt: null,
        lastError: null,
        lastErrorAt: null,
      });
      assert.ok(!JSON.stringify(health).includes(trmnl.plugin));

      // A push: published once rendered, posted with a signed picture URL the provider can fetch.
      const pushId = await customPush(api, token, device.id);
      const post = await eventually(
        () => Promise.resolve(trmnl.posts.find((p) => p.body.merge_variables?.pushId === pushId)),
        "the post",
      );
      assertEquals(post.path, new URL(trmnl.webhookUrl).pathname);
      assertEquals(post.type, "application/json");
      const vars = post.body.merge_variables;
      assertEquals(Object.keys(vars).sort(), ["image_url", "pushId", "title"]);
      const picture = new URL(vars.image_url);
      const expires = Number(picture.searchParams.get("expires"));
      assert.ok(Math.abs(expires - Date.now() / 1000 - 86_400) < 120, vars.image_url);
      const image = await fetchChecked(`${s.url}${picture.pathname}${picture.search}`);
      assertEquals([image.status, image.headers.get("content-type")], [200, "image/png"]);
      const page = expectStatus(await api.get(`/api/devices/${device.id}/pushes`, { token }), 200);
      const item = page.items.find((i: { pushId: string }) => i.pushId === pushId);
      assertEquals(item.status, "PUBLISHED");
      assert.ok(item.fetchedAt);
      const after = expectStatus(await api.get(`/api/devices/${device.id}/health`, { token }), 200);
      assert.ok(after.provider.lastPostAt);

      // The provider fails: retried, the failure shown in the device's health.
      trmnl.failWith(500);
      const failing = await customPush(api, token, device.id);
      const failed = await eventually(async () => {
        const h = expectStatus(await api.get(`/api/devices/${device.id}/health`, { token }), 200);
        return h.provider.lastError ? h : null;
      }, "the failure in health");
      assert.match(failed.provider.lastError, /500/);
      assert.ok(trmnl.posts.some((p) => p.body.merge_variables?.pushId === failing));

      // `cmd` is 409; another user's device 403 like any device.
      expectError(
        await api.post(`/api/devices/${device.id}/cmd`, {
          token,
          body: { kind: "text", text: "x" },
        }),
        409,
      );
      const bob = await registerUser(api, "trmnlbob");
      expectError(
        await api.get(`/api/devices/${device.id}/health`, { token: bob.accessToken }),
        403,
      );
    } finally {
      await trmnl.close();
    }
  },
);

suite.test(
  "pushes faster than the provider's limit: all published in turn, only the newest posted",
  async (api, s) => {
    const trmnl = fakeTrmnl();
    try {
      const alice = await registerUser(api, "coalesce");
      const token = alice.accessToken;
      const { device } = expectStatus(
        await api.post("/api/devices/external", {
          token,
          body: {
            name: "Busy",
            provider: "trmnl_webhook",
            credentials: { webhookUrl: trmnl.webhookUrl },
          },
        }),
        201,
      );
      // A post was just made (as far as the limit knows): the next waits for its interval.
      const db = s.app.services.db;
      const justPosted = () =>
        db.updateTable("display_providers").set({ posted_at: new Date(Date.now() + 3_600_000) })
          .where("device_id", "=", device.id).execute();
      await justPosted();
      const first = await customPush(api, token, device.id);
      const second = await customPush(api, token, device.id);
      const status = async (pushId: string) => {
        const page = expectStatus(
          await api.get(`/api/devices/${device.id}/pushes`, { token }),
          200,
        );
        return page.items.find((i: { pushId: string }) => i.pushId === pushId)?.status;
      };
      await eventually(
        async () => (await status(first)) === "QUEUE" && (await status(second)) === "QUEUE",
        "both renders",
      );
      assertEquals(trmnl.posts.length, 0);
      // The interval is over: the one post publishes both in turn and sends the newest only.
      await db.updateTable("display_providers").set({ posted_at: null })
        .where("device_id", "=", device.id).execute();
      await s.app.services.displays.external.deliver({ deviceId: device.id }, {
        number: 1,
        final: false,
      });
      assertEquals(trmnl.posts.map((p) => p.body.merge_variables.pushId), [second]);
      assertEquals([await status(first), await status(second)], ["EXPIRED", "PUBLISHED"]);
      // Nothing new: another run posts nothing again.
      await db.updateTable("display_providers").set({ posted_at: null })
        .where("device_id", "=", device.id).execute();
      await s.app.services.displays.external.deliver({ deviceId: device.id }, {
        number: 1,
        final: false,
      });
      assertEquals(trmnl.posts.length, 1);
    } finally {
      await trmnl.close();
    }
  },
);

suite.test("external displays count toward DISPLAYS_PER_USER (409 over it)", async (api) => {
  const alice = await registerUser(api, "limit");
  const create = () =>
    api.post("/api/devices/external", {
      token: alice.accessToken,
      body: { name: "Panel", provider: "image_feed" },
    });
  for (let i = 0; i < 3; i++) expectStatus(await create(), 201);
  expectError(await create(), 409);
  assertEquals(
    expectStatus(await api.get("/api/devices", { token: alice.accessToken }), 200).length,
    3,
  );
});

suite.test("a webhook on a private address is refused without WEBHOOK_ALLOW_PRIVATE's rule", async (api) => {
  // This server allows loopback; a link-local (cloud metadata) address stays refused.
  const alice = await registerUser(api, "metadata");
  expectError(
    await api.post("/api/devices/external", {
      token: alice.accessToken,
      body: {
        name: "x",
        provider: "trmnl_webhook",
        credentials: { webhookUrl: "http://169.254.169.254/api/custom_plugins/abcdef12" },
      },
    }),
    400,
  );
});

suite.end();
