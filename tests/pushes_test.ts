/** SPEC 3.1 and 4.5: push retrieval rules, history pages, current-push and custom pushes. */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import { createDevice, deviceRow, insertPush, pushRow } from "./helpers/devices.ts";
import { externalDatabaseUrl, type TestServer } from "./helpers/server.ts";
import { connectDevice, eventually } from "./helpers/mqtt.ts";
import { encode as encodePng } from "fast-png";
import { deflateSync } from "node:zlib";
import { buildPng, ihdr, pngChunk } from "./helpers/bombs.ts";
import { encodeRgb, gradientJpeg } from "../src/infra/render/testing/images.ts";
import { PushRenderJob } from "../src/domains/pushes/render_job.ts";
import type { ObjectStore } from "../src/infra/storage/object_store.ts";

const suite = serverSuite("pushes");

async function owner(api: Client, s: TestServer) {
  const user = await registerUser(api);
  const device = await createDevice(s, user.user.id);
  return { user, device, token: user.accessToken, base: `/api/devices/${device.id}` };
}

async function download(url: string) {
  const res = await fetchChecked(url);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

suite.test(
  "GET push: 404 with nothing, promotes the highest priority, then stays",
  async (api, s) => {
    const { user, device, token, base } = await owner(api, s);
    expectError(await api.get(`${base}/push`, { token }), 404);
    const low = await insertPush(s, device, user.user.id, { priority: 1 });
    const high = await insertPush(s, device, user.user.id, { priority: 5 });
    await insertPush(s, device, user.user.id, { priority: 9, status: "PREPARE" });
    const first = expectStatus(await api.get(`${base}/push`, { token }), 200);
    assertEquals(Object.keys(first).sort(), ["changed", "pushId", "sha256", "status", "url"]);
    assertEquals([first.pushId, first.status, first.changed], [high, "PUBLISHED", true]);
    const again = expectStatus(await api.get(`${base}/push`, { token }), 200);
    assertEquals([again.pushId, again.status, again.changed], [high, "PUBLISHED", false]);
    assert.equal((await pushRow(s, low)).status, "QUEUE");
    const row = await deviceRow(s, device.id);
    assert.equal(row.latest_push_id, high);
    assert.ok(row.latest_push_at);
  },
);

suite.test(
  "format selects the file: png, raw2 (48000 B), raw4 (96000 B), unknown → png",
  async (api, s) => {
    const { user, device, token, base } = await owner(api, s);
    await insertPush(s, device, user.user.id);
    const png = expectStatus(await api.get(`${base}/push`, { token }), 200);
    assert.match(png.url, /image\.png/);
    const raw2 = expectStatus(await api.get(`${base}/push?format=raw2`, { token }), 200);
    const raw4 = expectStatus(await api.get(`${base}/push?format=raw4`, { token }), 200);
    const odd = expectStatus(await api.get(`${base}/push?format=bmp`, { token }), 200);
    assert.match(odd.url, /image\.png/);
    // A repeated parameter is not a 400 (SPEC 4.5: `format` never fails a request).
    const twice = `format=raw4&format=raw2`;
    expectStatus(await api.get(`${base}/push?${twice}`, { token }), 200);
    expectStatus(await api.get(`${base}/push/${png.pushId}?${twice}`, { token }), 200);
    expectStatus(await api.post(`${base}/push/refresh?${twice}`, { token }), 200);
    assertEquals((await download(raw2.url)).bytes.byteLength, 48000);
    const four = await download(raw4.url);
    assertEquals([four.status, four.bytes.byteLength], [200, 96000]);
    const image = await download(png.url);
    assertEquals([image.status, image.type], [200, "image/png"]);
  },
);

suite.test(
  "signed URLs refuse a tampered signature, another key and an expired URL",
  async (api, s) => {
    const { user, device, token, base } = await owner(api, s);
    await insertPush(s, device, user.user.id);
    const { url } = expectStatus(await api.get(`${base}/push?format=raw2`, { token }), 200);
    // Flip the first signature character (a fixed replacement is a no-op 1 time in 64).
    const tampered = url.replace(
      /signature=(.)/,
      (_: string, c: string) => `signature=${c === "A" ? "B" : "A"}`,
    );
    assert.equal((await download(tampered)).status, 403);
    assert.equal((await download(url.replace("image2.raw", "image4.raw"))).status, 403);
    assert.equal((await download(url.replace(/expires=\d+/, "expires=9999999999"))).status, 403);
    const key = decodeURIComponent(new URL(url).pathname.split("/").pop()!);
    const expired = await s.app.services.storage.signedGetUrl(key, -1);
    assert.equal((await download(expired)).status, 403);
  },
);

suite.test(
  "refresh: promotes the next, expires the previous; none queued → current, unchanged",
  async (api, s) => {
    const { user, device, token, base } = await owner(api, s);
    expectError(await api.post(`${base}/push/refresh`, { token }), 404);
    const a = await insertPush(s, device, user.user.id, { priority: 3 });
    const b = await insertPush(s, device, user.user.id, { priority: 2 });
    const first = expectStatus(await api.post(`${base}/push/refresh`, { token }), 200);
    assertEquals([first.pushId, first.changed, first.status], [a, true, "PUBLISHED"]);
    const second = expectStatus(await api.post(`${base}/push/refresh?format=raw4`, { token }), 200);
    assertEquals([second.pushId, second.changed], [b, true]);
    assert.match(second.url, /image4\.raw/);
    assert.equal((await pushRow(s, a)).status, "EXPIRED");
    const third = expectStatus(await api.post(`${base}/push/refresh`, { token }), 200);
    assertEquals([third.pushId, third.changed, third.status], [b, false, "PUBLISHED"]);
  },
);

suite.test(
  "GET push/{pushId} returns that push and changes nothing; 400/403/404",
  async (api, s) => {
    const { user, device, token, base } = await owner(api, s);
    const other = await owner(api, s);
    const queued = await insertPush(s, device, user.user.id);
    const preparing = await insertPush(s, device, user.user.id, { status: "PREPARE" });
    const foreign = await insertPush(s, other.device, other.user.user.id);
    const body = expectStatus(await api.get(`${base}/push/${queued}?format=raw2`, { token }), 200);
    assertEquals([body.pushId, body.status, body.changed], [queued, "QUEUE", false]);
    assert.match(body.url, /image2\.raw/);
    assert.equal((await pushRow(s, queued)).status, "QUEUE");
    assert.equal((await deviceRow(s, device.id)).latest_push_id, null);
    expectError(await api.get(`${base}/push/${preparing}`, { token }), 404);
    expectError(await api.get(`${base}/push/${foreign}`, { token }), 404);
    expectError(await api.get(`${base}/push/not-a-uuid`, { token }), 400);
    expectError(await api.get(`${base}/push/${queued}`, { token: other.token }), 403);
    expectError(await api.get(`/api/devices/bad/push`, { token }), 400);
    expectError(await api.get(`${base}/push`), 401);
    expectError(await api.get(`${base}/push`, { token: other.token }), 403);
  },
);

suite.test(
  "current-push publishes the target, returns the previous to QUEUE, sends new_push",
  async (api, s) => {
    const { user, device, token, base } = await owner(api, s);
    const other = await owner(api, s);
    const a = await insertPush(s, device, user.user.id, { priority: 5 });
    const b = await insertPush(s, device, user.user.id, { priority: 1 });
    const preparing = await insertPush(s, device, user.user.id, { status: "PREPARE" });
    const foreign = await insertPush(s, other.device, other.user.user.id);
    expectStatus(await api.get(`${base}/push`, { token }), 200);
    const sim = await connectDevice(s.app.mqttUrl, device.thingName);
    try {
      const body = expectStatus(
        await api.post(`${base}/current-push`, { token, body: { pushId: b } }),
        200,
      );
      assert.equal(typeof body.message, "string");
      assertEquals(await sim.next("down/cmd", (m) => m.kind === "new_push"), {
        kind: "new_push",
        pushId: b,
      });
    } finally {
      await sim.close();
    }
    assertEquals([(await pushRow(s, a)).status, (await pushRow(s, b)).status], [
      "QUEUE",
      "PUBLISHED",
    ]);
    assert.equal((await deviceRow(s, device.id)).latest_push_id, b);
    const current = expectStatus(await api.get(`${base}/push`, { token }), 200);
    assertEquals([current.pushId, current.changed], [b, false]);
    expectError(
      await api.post(`${base}/current-push`, { token, body: { pushId: preparing } }),
      404,
    );
    expectError(await api.post(`${base}/current-push`, { token, body: { pushId: foreign } }), 404);
    expectError(await api.post(`${base}/current-push`, { token, body: { pushId: "x" } }), 400);
    expectError(await api.post(`${base}/current-push`, { token, body: {} }), 400);
    expectError(
      await api.post(`${base}/current-push`, { token: other.token, body: { pushId: a } }),
      403,
    );
  },
);

suite.test(
  "history: newest first, keyset cursor, filters, limit; 400 on bad input",
  async (api, s) => {
    const { user, device, token, base } = await owner(api, s);
    const t0 = Date.parse("2026-01-01T00:00:00Z");
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      ids.push(
        await insertPush(s, device, user.user.id, {
          title: `p${i}`,
          // Two pushes share each millisecond: the id breaks the tie.
          createdAt: new Date(t0 + Math.floor(i / 2) * 1000),
        }),
      );
    }
    const page1 = expectStatus(await api.get(`${base}/pushes`, { token }), 200);
    assertEquals(Object.keys(page1).sort(), ["hasMore", "items", "nextCursor"]);
    assert.equal(page1.items.length, 20);
    assert.equal(page1.hasMore, true);
    assertEquals(Object.keys(page1.items[0]).sort(), [
      "createdAt",
      "priority",
      "pushId",
      "status",
      "summary",
      "title",
    ]);
    // A push created between pages shows up on no page already served, and nothing repeats.
    await insertPush(s, device, user.user.id, { title: "new" });
    const page2 = expectStatus(
      await api.get(`${base}/pushes?cursor=${page1.nextCursor}`, { token }),
      200,
    );
    assertEquals(Object.keys(page2).sort(), ["hasMore", "items"]);
    assert.equal(page2.hasMore, false);
    const seen = [...page1.items, ...page2.items].map((p: { pushId: string }) => p.pushId);
    const expected = [...ids].sort((x, y) => {
      const dx = Math.floor(ids.indexOf(x) / 2), dy = Math.floor(ids.indexOf(y) / 2);
      return dy - dx || (y < x ? -1 : 1);
    });
    assertEquals(seen, expected);
    const small = expectStatus(await api.get(`${base}/pushes?limit=3`, { token }), 200);
    assert.equal(small.items.length, 3);
    const capped = expectStatus(await api.get(`${base}/pushes?limit=500`, { token }), 200);
    assert.equal(capped.items.length, 26);
    const windowed = expectStatus(
      await api.get(
        `${base}/pushes?from=2026-01-01T00:00:02Z&to=2026-01-01T00:00:03Z`,
        { token },
      ),
      200,
    );
    assert.equal(windowed.items.length, 4);
    await insertPush(s, device, user.user.id, { status: "CONFIRMED" });
    const confirmed = expectStatus(
      await api.get(`${base}/pushes?status=CONFIRMED`, { token }),
      200,
    );
    assertEquals(confirmed.items.map((p: { status: string }) => p.status), ["CONFIRMED"]);
    expectError(await api.get(`${base}/pushes?cursor=garbage`, { token }), 400);
    expectError(await api.get(`${base}/pushes?status=DONE`, { token }), 400);
    expectError(await api.get(`${base}/pushes?limit=0`, { token }), 400);
    expectError(await api.get(`${base}/pushes?from=yesterday`, { token }), 400);
    const other = await owner(api, s);
    expectError(await api.get(`${base}/pushes`, { token: other.token }), 403);
  },
);

suite.test("limit over 50 is capped at 50", async (api, s) => {
  const { user, device, token, base } = await owner(api, s);
  for (let i = 0; i < 52; i++) await insertPush(s, device, user.user.id);
  const page = expectStatus(await api.get(`${base}/pushes?limit=80`, { token }), 200);
  assertEquals([page.items.length, page.hasMore], [50, true]);
});

suite.test("concurrent GET push calls publish exactly one push", async (api, s) => {
  const { user, device, token, base } = await owner(api, s);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await insertPush(s, device, user.user.id, { priority: i }));
  const replies = await Promise.all(
    Array.from({ length: 12 }, () => api.get(`${base}/push`, { token })),
  );
  const bodies = replies.map((r) => expectStatus(r, 200));
  assertEquals(new Set(bodies.map((b) => b.pushId)), new Set([ids[4]]));
  assert.equal(bodies.filter((b) => b.changed).length, 1);
  const statuses = await Promise.all(ids.map(async (id) => (await pushRow(s, id)).status));
  assertEquals(statuses, ["QUEUE", "QUEUE", "QUEUE", "QUEUE", "PUBLISHED"]);
});

suite.test("concurrent refreshes each publish a different push, none skipped", async (api, s) => {
  const { user, device, token, base } = await owner(api, s);
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push(await insertPush(s, device, user.user.id, { priority: i }));
  const replies = await Promise.all(
    Array.from({ length: 6 }, () => api.post(`${base}/push/refresh`, { token })),
  );
  const bodies = replies.map((r) => expectStatus(r, 200));
  assert.ok(bodies.every((b) => b.changed));
  assertEquals(new Set(bodies.map((b) => b.pushId)), new Set(ids));
  const statuses = await Promise.all(ids.map(async (id) => (await pushRow(s, id)).status));
  assertEquals(statuses.filter((x) => x === "PUBLISHED").length, 1);
  assertEquals(statuses.filter((x) => x === "EXPIRED").length, 5);
  assert.equal(
    (await deviceRow(s, device.id)).latest_push_id,
    bodies.find((b) => statuses[ids.indexOf(b.pushId)] === "PUBLISHED").pushId,
  );
});

/** A 40x30 grey PNG: a real image for the render pool. */
function samplePng(): Uint8Array {
  const data = new Uint8Array(40 * 30);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 256;
  return encodePng({ width: 40, height: 30, data, channels: 1, depth: 8 });
}

async function upload(
  ticket: { url: string; fields: Record<string, string> },
  bytes: Uint8Array,
  type = "image/png",
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticket.fields)) form.append(k, v);
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type }), "upload");
  // SPEC 5.9: no Authorization header on presigned uploads.
  const res = await fetchChecked(ticket.url, { method: "POST", body: form });
  await res.body?.cancel();
  return res.status;
}

suite.test(
  "custom push: ticket, upload, confirm → PREPARE, rendered to QUEUE, then shown",
  async (api, s) => {
    const { device, token, base } = await owner(api, s);
    const ticket = expectStatus(
      await api.post(`${base}/custom-push/upload`, {
        token,
        body: { contentType: "image/png", sizeBytes: 5000 },
      }),
      200,
    );
    assertEquals(Object.keys(ticket).sort(), ["expiresAt", "fields", "fileId", "url"]);
    const ttl = Date.parse(ticket.expiresAt) - Date.now();
    assert.ok(ttl > 14 * 60_000 && ttl <= 15 * 60_000, `ttl ${ttl}`);
    expectError(
      await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: ticket.fileId } }),
      409,
    );
    assert.equal(await upload(ticket, samplePng()), 204);
    const confirmed = expectStatus(
      await api.post(`${base}/custom-push/confirm`, {
        token,
        body: { fileId: ticket.fileId, title: "Holiday" },
      }),
      200,
    );
    assertEquals(Object.keys(confirmed), ["pushId"]);
    expectError(
      await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: ticket.fileId } }),
      409,
    );
    const pushId = confirmed.pushId;
    const created = await pushRow(s, pushId);
    assert.ok(["PREPARE", "QUEUE"].includes(created.status));
    assert.equal(created.title, "Holiday");
    const rendered = await eventually(async () => {
      const row = await pushRow(s, pushId);
      return row.status === "QUEUE" ? row : null;
    }, "render");
    assert.equal(rendered.render_prefix, `render/${rendered.user_id}/${device.id}/${pushId}/`);
    const file = await s.app.services.db.selectFrom("files").selectAll()
      .where("id", "=", rendered.file_id!).executeTakeFirstOrThrow();
    assert.equal(file.object_key, `${rendered.render_prefix}image.png`);
    expectStatus(await api.post(`${base}/current-push`, { token, body: { pushId } }), 200);
    const raw2 = expectStatus(await api.get(`${base}/push?format=raw2`, { token }), 200);
    assertEquals([raw2.pushId, raw2.status], [pushId, "PUBLISHED"]);
    assert.equal((await download(raw2.url)).bytes.byteLength, 48000);
    const png = await download(expectStatus(await api.get(`${base}/push`, { token }), 200).url);
    // A 1-bit PNG: IHDR bit depth (byte 24) is 1.
    assertEquals([png.type, png.bytes[24]], ["image/png", 1]);
  },
);

suite.test(
  "custom push: 400 non-image type, 413 over 10 MB, 403, 404 unknown file",
  async (api, s) => {
    const { token, base } = await owner(api, s);
    const other = await owner(api, s);
    expectError(
      await api.post(`${base}/custom-push/upload`, { token, body: { contentType: "text/plain" } }),
      400,
    );
    expectError(await api.post(`${base}/custom-push/upload`, { token, body: {} }), 400);
    // sizeBytes is an integer: values a lax coercion would read as 0 or 1 are 400.
    for (const sizeBytes of ["", "5", null, true, []]) {
      expectError(
        await api.post(`${base}/custom-push/upload`, {
          token,
          body: { contentType: "image/png", sizeBytes },
        }),
        400,
      );
    }
    expectError(
      await api.post(`${base}/custom-push/upload`, {
        token,
        body: { contentType: "image/jpeg", sizeBytes: 10 * 1024 * 1024 + 1 },
      }),
      413,
    );
    expectError(
      await api.post(`${base}/custom-push/upload`, {
        token: other.token,
        body: { contentType: "image/png" },
      }),
      403,
    );
    const ticket = expectStatus(
      await api.post(`${base}/custom-push/upload`, { token, body: { contentType: "image/png" } }),
      200,
    );
    // Another user's device cannot confirm this upload.
    expectError(
      await api.post(`${other.base}/custom-push/confirm`, {
        token: other.token,
        body: { fileId: ticket.fileId },
      }),
      404,
    );
    expectError(
      await api.post(`${base}/custom-push/confirm`, {
        token,
        body: { fileId: "01a20190-0000-7000-8000-000000000000" },
      }),
      404,
    );
    expectError(
      await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: "x" } }),
      400,
    );
  },
);

suite.test(
  "embedded upload enforces policy: signature, key, content type, size, non-image",
  async (api, s) => {
    const { token, base } = await owner(api, s);
    const ticket = () =>
      api.post(`${base}/custom-push/upload`, { token, body: { contentType: "image/png" } })
        .then((r) => expectStatus(r, 200));
    const t1 = await ticket();
    assert.equal(
      await upload({ ...t1, fields: { ...t1.fields, signature: "AAAA" } }, samplePng()),
      403,
    );
    assert.equal(
      await upload({ ...t1, fields: { ...t1.fields, key: "render/evil" } }, samplePng()),
      403,
    );
    assert.equal(
      await upload({ ...t1, fields: { ...t1.fields, "Content-Type": "text/html" } }, samplePng()),
      403,
    );
    assert.equal(await upload(t1, new Uint8Array(10 * 1024 * 1024 + 1)), 413);
    const expired = await s.app.services.storage.presignUpload(t1.fields.key, {
      contentType: "image/png",
      maxBytes: 100,
      expiresInSeconds: -1,
    });
    assert.equal(await upload(expired, samplePng()), 403);
    // Bytes that are not an image, declared as one: the embedded store sniffs and refuses them.
    assert.equal(await upload(t1, new TextEncoder().encode("<html>not an image</html>")), 403);
    assert.equal(await s.app.services.storage.head(t1.fields.key), null);
    // S3 stores what it is given: confirm sniffs and refuses it as well.
    await s.app.services.storage.put(
      t1.fields.key,
      new TextEncoder().encode("<svg/>"),
      "image/svg+xml",
    );
    expectError(
      await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: t1.fileId } }),
      409,
      /not an image/,
    );
    // Every type the store sniffs is one the render decodes (issue 12): a GIF is confirmable;
    // one whose header is cut short is refused at confirm (issue 25), never left to a render.
    const t2 = await ticket();
    assert.equal(await upload(t2, new TextEncoder().encode("GIF89a\x01\x00")), 204);
    expectError(
      await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: t2.fileId } }),
      409,
      /cannot be rendered: GIF header is truncated/,
    );
    const t3 = await ticket();
    assert.equal(await upload(t3, await encodeRgb(new Uint8Array(8 * 8 * 3), 8, 8, "gif")), 204);
    expectStatus(
      await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: t3.fileId } }),
      200,
    );
  },
);

suite.test(
  "custom push fit: a 4:3 photo fills the frame by default, contain keeps the white bands, anything else is 400",
  async (api, s) => {
    // Issue 34: custom photos were always letterboxed with white bars.
    const { token, base } = await owner(api, s);
    const photo = encodePng({
      width: 400,
      height: 300,
      data: new Uint8Array(400 * 300).fill(60),
      channels: 1,
      depth: 8,
    });
    /** Whether the rendered 1 bpp frame's left column is white from top to bottom. */
    const leftColumnWhite = async (fit?: string) => {
      const t = expectStatus(
        await api.post(`${base}/custom-push/upload`, { token, body: { contentType: "image/png" } }),
        200,
      );
      assert.equal(await upload(t, photo), 204);
      const body = { fileId: t.fileId, mode: "photo", ...(fit ? { fit } : {}) };
      const { pushId } = expectStatus(
        await api.post(`${base}/custom-push/confirm`, { token, body }),
        200,
      );
      const row = await eventually(async () => {
        const r = await pushRow(s, pushId);
        return r.status === "QUEUE" ? r : null;
      }, "render");
      const raw2 = (await s.app.services.storage.get(`${row.render_prefix}image2.raw`))!;
      return Array.from({ length: 480 }, (_, y) => raw2[y * 100] >> 7).every((bit) => bit === 1);
    };
    assertEquals(await leftColumnWhite(), false);
    assertEquals(await leftColumnWhite("cover"), false);
    assertEquals(await leftColumnWhite("contain"), true);
    const t = expectStatus(
      await api.post(`${base}/custom-push/upload`, { token, body: { contentType: "image/png" } }),
      200,
    );
    assert.equal(await upload(t, photo), 204);
    expectError(
      await api.post(`${base}/custom-push/confirm`, {
        token,
        body: { fileId: t.fileId, fit: "stretch" },
      }),
      400,
      /fit/,
    );
  },
);

/** Uploads `bytes` as a custom push source and confirms it: the confirm reply. */
async function uploadAndConfirm(api: Client, token: string, base: string, bytes: Uint8Array) {
  const t = expectStatus(
    await api.post(`${base}/custom-push/upload`, { token, body: { contentType: "image/png" } }),
    200,
  );
  assert.equal(await upload(t, bytes), 204);
  return {
    fileId: t.fileId,
    reply: await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: t.fileId } }),
  };
}

suite.test(
  "confirm answers 409 for a file that cannot be decoded, and creates no push (issue 25)",
  async (api, s) => {
    const { token, base } = await owner(api, s);
    // Issue 25's reproductions: a PNG signature followed by 5,000 0xff bytes; a PNG and a JPEG
    // cut short (the JPEG by its last two bytes only: libjpeg-turbo refuses that too).
    const ffs = new Uint8Array(5008).fill(0xff);
    ffs.set(samplePng().subarray(0, 8));
    const png = samplePng();
    const jpeg = await gradientJpeg(64, 48);
    const files = {
      "PNG signature and 0xff bytes": ffs,
      "PNG cut in half": png.subarray(0, png.length >> 1),
      "JPEG cut in half": jpeg.subarray(0, jpeg.length >> 1),
      "JPEG without its end marker": jpeg.subarray(0, jpeg.length - 2),
    };
    for (const [name, bytes] of Object.entries(files)) {
      const { fileId, reply } = await uploadAndConfirm(api, token, base, bytes);
      expectError(reply, 409, /^Uploaded image cannot be rendered: /);
      const file = await s.app.services.db.selectFrom("files").select("status")
        .where("id", "=", fileId).executeTakeFirstOrThrow();
      assertEquals(file.status, "pending", name);
    }
    assertEquals(expectStatus(await api.get(`${base}/pushes`, { token }), 200).items, []);
  },
);

suite.test(
  "a render refusal that slips past confirm fails the push once, for good, shown in history",
  async (api, s) => {
    const { user, device, token, base } = await owner(api, s);
    // Sound PNG chunks whose image data inflates short: only a decoder sees it (issue 25: confirm
    // reads headers and structure, never inflates).
    const short = buildPng(ihdr(40, 30), [pngChunk("IDAT", deflateSync(new Uint8Array(100)))]);
    const { reply } = await uploadAndConfirm(api, token, base, short);
    const { pushId } = expectStatus(reply, 200);
    const failed = await eventually(async () => {
      const row = await pushRow(s, pushId);
      return row.render_failed_at ? row : null;
    }, "render failure");
    assertEquals([failed.status, failed.render_prefix, failed.file_id], ["PREPARE", null, null]);
    assertEquals(failed.render_attempts, 1);
    assert.match(failed.render_error ?? "", /could not be decoded: PNG image data is truncated/);
    const prefix = `render/${user.user.id}/${device.id}/${pushId}/`;
    assert.equal(await s.app.services.storage.head(`${prefix}image.png`), null);
    expectError(await api.get(`${base}/push/${pushId}`, { token }), 404);
    // GET history shows the push with why it failed.
    const page = expectStatus(await api.get(`${base}/pushes`, { token }), 200);
    assertEquals(page.items.map((p: { pushId: string }) => p.pushId), [pushId]);
    assertEquals(page.items[0].status, "PREPARE");
    assertEquals(page.items[0].error, failed.render_error);
    // The job delivered again renders nothing: the push failed once, for good.
    let renders = 0;
    const counting = Object.create(s.app.services.renderer);
    counting.renderImage = (...args: unknown[]) => {
      renders++;
      return s.app.services.renderer.renderImage(...(args as [Uint8Array]));
    };
    await new PushRenderJob(s.app.services.pushes, counting, { store: s.app.services.storage })
      .handle({ pushId }, {
        number: 2,
        final: false,
      });
    assertEquals(renders, 0);
    assertEquals((await pushRow(s, pushId)).render_attempts, 1);
    // A push whose render succeeds shows no error.
    const good = await uploadAndConfirm(api, token, base, samplePng());
    const goodId = expectStatus(good.reply, 200).pushId;
    await eventually(async () => (await pushRow(s, goodId)).status === "QUEUE", "render");
    const both = expectStatus(await api.get(`${base}/pushes`, { token }), 200);
    assertEquals(both.items.map((p: Record<string, unknown>) => "error" in p), [false, true]);
  },
);

suite.test(
  "a transient render failure is retried; on the last attempt it fails for good",
  async (api, s) => {
    const { user, device, token, base } = await owner(api, s);
    const services = s.app.services;
    const sourceKey = `uploads/${user.user.id}/${device.id}/source`;
    await services.storage.put(sourceKey, samplePng(), "image/png");
    const pushId = await insertPush(s, device, user.user.id, { status: "PREPARE" });
    await services.db.updateTable("pushes")
      .set({ template: "custom-image", source_key: sourceKey }).where("id", "=", pushId).execute();
    const busy = Object.create(services.renderer);
    busy.renderImage = () => Promise.reject(new Error("worker crashed"));
    const job = new PushRenderJob(services.pushes, busy, { store: services.storage });
    await assert.rejects(job.handle({ pushId }, { number: 1, final: false }), /crashed/);
    const retried = await pushRow(s, pushId);
    assertEquals([retried.render_attempts, retried.render_failed_at], [1, null]);
    const page = expectStatus(await api.get(`${base}/pushes`, { token }), 200);
    assert.ok(!("error" in page.items[0]), "a failure that will be retried is not shown");
    await assert.rejects(job.handle({ pushId }, { number: 2, final: true }), /crashed/);
    const failed = await pushRow(s, pushId);
    assertEquals(failed.render_attempts, 2);
    assert.ok(failed.render_failed_at);
    const shown = expectStatus(await api.get(`${base}/pushes`, { token }), 200);
    assertEquals(shown.items[0].error, "worker crashed");
  },
);

suite.test(
  "one job renders its pushes along; a failure with a retry left stops it, the last try tries all",
  async (api, s) => {
    const { user, device } = await owner(api, s);
    const services = s.app.services;
    const sourceKey = `uploads/${user.user.id}/${device.id}/source`;
    await services.storage.put(sourceKey, samplePng(), "image/png");
    const prepare = async () => {
      const id = await insertPush(s, device, user.user.id, { status: "PREPARE" });
      await services.db.updateTable("pushes")
        .set({ template: "custom-image", source_key: sourceKey }).where("id", "=", id).execute();
      return id;
    };
    const [a, b] = [await prepare(), await prepare()];
    const busy = Object.create(services.renderer);
    busy.renderImage = () => Promise.reject(new Error("worker crashed"));
    const failing = new PushRenderJob(services.pushes, busy, { store: services.storage });
    await assert.rejects(
      failing.handle({ pushId: a, along: [b] }, { number: 1, final: false }),
      /crashed/,
    );
    assertEquals([(await pushRow(s, a)).render_attempts, (await pushRow(s, b)).render_attempts], [
      1,
      0,
    ]);
    await assert.rejects(
      failing.handle({ pushId: a, along: [b] }, { number: 2, final: true }),
      /crashed/,
    );
    for (const id of [a, b]) assert.ok((await pushRow(s, id)).render_failed_at, "failed for good");
    const [c, d] = [await prepare(), await prepare()];
    await new PushRenderJob(services.pushes, services.renderer, { store: services.storage })
      .handle({ pushId: c, along: [d] });
    assertEquals([(await pushRow(s, c)).status, (await pushRow(s, d)).status], ["QUEUE", "QUEUE"]);
  },
);

suite.test(
  "a store failure mid-render removes the files written so far and records the error",
  async (api, s) => {
    const { user, device } = await owner(api, s);
    const services = s.app.services;
    const real = services.storage;
    const sourceKey = `uploads/${user.user.id}/${device.id}/source`;
    await real.put(sourceKey, samplePng(), "image/png");
    // A PREPARE push inserted directly: no queued job races the renderer under test.
    const pushId = await insertPush(s, device, user.user.id, { status: "PREPARE" });
    await services.db.updateTable("pushes")
      .set({ template: "custom-image", source_key: sourceKey }).where("id", "=", pushId).execute();
    const push = { id: pushId };
    // Fails on the third file, after image.png and image2.raw were written.
    const failing: ObjectStore = Object.create(real);
    failing.put = (key, bytes, type) =>
      key.endsWith("image4.raw")
        ? Promise.reject(new Error("disk full"))
        : real.put(key, bytes, type);
    const renderer = new PushRenderJob(services.pushes, services.renderer, { store: failing });
    // A transient failure is rethrown, so the queue retries it.
    await assert.rejects(renderer.handle({ pushId: push.id }), /disk full/);
    const row = await pushRow(s, push.id);
    assertEquals([row.status, row.render_prefix, row.file_id], ["PREPARE", null, null]);
    assert.match(row.render_error ?? "", /disk full/);
    assert.equal(row.render_attempts, 1);
    const prefix = `render/${user.user.id}/${device.id}/${push.id}/`;
    assert.equal(await real.head(`${prefix}image.png`), null);
    assert.equal(await real.head(`${prefix}image2.raw`), null);
    // The retry with a working store completes the render.
    await new PushRenderJob(services.pushes, services.renderer, { store: services.storage })
      .handle({ pushId: push.id });
    const done = await pushRow(s, push.id);
    assertEquals([done.status, done.render_prefix, done.render_error], ["QUEUE", prefix, null]);
  },
);

if (externalDatabaseUrl) {
  suite.test("concurrent confirms of one upload create one push", async (api, s) => {
    const { token, base } = await owner(api, s);
    const t = expectStatus(
      await api.post(`${base}/custom-push/upload`, { token, body: { contentType: "image/png" } }),
      200,
    );
    assert.equal(await upload(t, samplePng()), 204);
    const replies = await Promise.all(
      Array.from(
        { length: 6 },
        () => api.post(`${base}/custom-push/confirm`, { token, body: { fileId: t.fileId } }),
      ),
    );
    assertEquals(replies.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409]);
  });
}

suite.end();
