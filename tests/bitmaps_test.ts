/**
 * Issue 12 end to end: newly accepted formats through a custom push, the push URL object's
 * `sha256`, identical renders stored once per device, the per-push `dither` choice, and output
 * checks that keep a broken render from being served.
 */
import { encode as encodePng } from "fast-png";
import sharp from "sharp";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { createDevice, insertPush, pushRow } from "./helpers/devices.ts";
import type { TestServer } from "./helpers/server.ts";
import { eventually } from "./helpers/mqtt.ts";
import { PushRenderJob } from "../src/domains/pushes/render_job.ts";
import { encodeRgb, rgbPixels } from "../src/infra/render/testing/images.ts";
import type { PushBitmaps, Renderer } from "../src/infra/render/types.ts";

const suite = serverSuite("bitmaps");

async function owner(api: Client, s: TestServer) {
  const user = await registerUser(api);
  const device = await createDevice(s, user.user.id);
  return { user, device, token: user.accessToken, base: `/api/devices/${device.id}` };
}

async function upload(ticket: { url: string; fields: Record<string, string> }, bytes: Uint8Array) {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticket.fields)) form.append(k, v);
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), "upload");
  const res = await fetch(ticket.url, { method: "POST", body: form });
  await res.body?.cancel();
  return res.status;
}

/** Ticket, upload, confirm; returns the push id. */
async function customPush(
  api: Client,
  o: { token: string; base: string },
  bytes: Uint8Array,
  contentType: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const ticket = expectStatus(
    await api.post(`${o.base}/custom-push/upload`, { token: o.token, body: { contentType } }),
    200,
  );
  assertEquals(await upload(ticket, bytes), 204);
  const confirmed = expectStatus(
    await api.post(`${o.base}/custom-push/confirm`, {
      token: o.token,
      body: { fileId: ticket.fileId, ...extra },
    }),
    200,
  );
  return confirmed.pushId;
}

function queued(s: TestServer, pushId: string) {
  return eventually(async () => {
    const row = await pushRow(s, pushId);
    if (row.render_error) throw new Error(`render failed: ${row.render_error}`);
    return row.status === "QUEUE" ? row : null;
  }, "render");
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return new Uint8Array(digest).toHex();
}

const gradient = rgbPixels(96, 64, (x, y) => [x * 2, y * 3, 128]);

suite.test("custom push: WebP, AVIF and TIFF uploads render to QUEUE", async (api, s) => {
  const o = await owner(api, s);
  for (const format of ["webp", "avif", "tiff"] as const) {
    const bytes = await encodeRgb(gradient, 96, 64, format);
    const row = await queued(s, await customPush(api, o, bytes, `image/${format}`));
    const raw2 = await s.app.services.storage.get(`${row.render_prefix}image2.raw`);
    assertEquals(raw2?.length, 48000, format);
  }
});

suite.test("custom push: an animated GIF renders its first frame", async (api, s) => {
  const o = await owner(api, s);
  const frame = (colour: string) =>
    sharp({ create: { width: 8, height: 8, channels: 3, background: colour } }).png().toBuffer();
  const gif = new Uint8Array(
    await sharp([await frame("#ffffff"), await frame("#000000")], { join: { animated: true } })
      .gif().toBuffer(),
  );
  assertEquals((await sharp(gif).metadata()).pages, 2);
  const row = await queued(s, await customPush(api, o, gif, "image/gif"));
  const raw2 = await s.app.services.storage.get(`${row.render_prefix}image2.raw`);
  // The white first frame: every pixel white (the black second frame would be all zero bits).
  assert.ok(raw2?.every((b) => b === 0xff));
});

suite.test(
  "push URL object: sha256 of the file it points to; identical renders are stored once",
  async (api, s) => {
    const o = await owner(api, s);
    const png = encodePng({ width: 96, height: 64, data: gradient, channels: 3 });
    const first = await queued(s, await customPush(api, o, png, "image/png"));
    const second = await queued(s, await customPush(api, o, png, "image/png"));
    // The second push points at the first one's files (SPEC 4.6 keys stay per push).
    assertEquals(second.render_prefix, first.render_prefix);
    assertEquals(second.file_id, first.file_id);
    const own = `render/${second.user_id}/${o.device.id}/${second.id}/`;
    assertEquals(await s.app.services.storage.head(`${own}image.png`), null);
    for (const format of ["png", "raw2", "raw4"]) {
      const reply = expectStatus(
        await api.get(`${o.base}/push/${second.id}?format=${format}`, { token: o.token }),
        200,
      );
      const bytes = new Uint8Array(await (await fetch(reply.url)).arrayBuffer());
      assertEquals(reply.sha256, await sha256Hex(bytes), format);
    }
    // Another device of the same user stores its own copy (unbinding one removes only its files).
    const other = await createDevice(s, o.user.user.id);
    const third = await queued(
      s,
      await customPush(api, { token: o.token, base: `/api/devices/${other.id}` }, png, "image/png"),
    );
    assert.ok(third.render_prefix?.includes(other.id));
  },
);

suite.test("dither: confirm takes a kernel per push; anything else is 400", async (api, s) => {
  const o = await owner(api, s);
  // A flat 60% grey: threshold makes it all white, Atkinson a dot pattern.
  const grey = encodePng({ width: 8, height: 8, data: new Uint8Array(64).fill(150), channels: 1 });
  const flat = await queued(
    s,
    await customPush(api, o, grey, "image/png", { dither: "threshold" }),
  );
  const raw2 = await s.app.services.storage.get(`${flat.render_prefix}image2.raw`);
  assert.ok(raw2?.every((b) => b === 0xff));
  assertEquals((flat.params as { dither?: string }).dither, "threshold");
  const ticket = expectStatus(
    await api.post(`${o.base}/custom-push/upload`, {
      token: o.token,
      body: { contentType: "image/png" },
    }),
    200,
  );
  assertEquals(await upload(ticket, grey), 204);
  expectError(
    await api.post(`${o.base}/custom-push/confirm`, {
      token: o.token,
      body: { fileId: ticket.fileId, dither: "ordered" },
    }),
    400,
  );
});

suite.test(
  "mode: confirm takes auto, photo or document per push (stored, rendered); anything else is 400",
  async (api, s) => {
    const o = await owner(api, s);
    const page = await Deno.readFile(
      new URL("../src/infra/render/testdata/photos/paper-page.jpg", import.meta.url),
    );
    const rendered = async (extra: Record<string, unknown>) => {
      const row = await queued(s, await customPush(api, o, page, "image/jpeg", extra));
      const raw2 = await s.app.services.storage.get(`${row.render_prefix}image2.raw`);
      assert.ok(raw2);
      return { params: row.params as { mode?: string }, raw2 };
    };
    const auto = await rendered({});
    const document = await rendered({ mode: "document" });
    const photo = await rendered({ mode: "photo" });
    assertEquals(auto.params.mode, undefined);
    assertEquals(document.params.mode, "document");
    assertEquals(photo.params.mode, "photo");
    // auto takes the page for a document; photo keeps the tone stage's dither of its shading.
    assertEquals(auto.raw2, document.raw2);
    assert.notDeepStrictEqual(photo.raw2, document.raw2);
    const ticket = expectStatus(
      await api.post(`${o.base}/custom-push/upload`, {
        token: o.token,
        body: { contentType: "image/jpeg" },
      }),
      200,
    );
    assertEquals(await upload(ticket, page), 204);
    for (const mode of ["scan", "", 1, null]) {
      expectError(
        await api.post(`${o.base}/custom-push/confirm`, {
          token: o.token,
          body: { fileId: ticket.fileId, mode },
        }),
        400,
      );
    }
  },
);

/** A renderer whose output is broken in one way. */
function brokenRenderer(broken: (good: PushBitmaps) => PushBitmaps, real: Renderer): Renderer {
  return {
    ...real,
    renderImage: async (source, options) => broken(await real.renderImage(source, options)),
    close: () => Promise.resolve(),
  };
}

suite.test(
  "output checks: a truncated raw or a wrong-size PNG is a recorded failure, never served",
  async (api, s) => {
    const { user, device, token, base } = await owner(api, s);
    const services = s.app.services;
    const sourceKey = `uploads/${user.user.id}/${device.id}/source`;
    const png = encodePng({ width: 8, height: 8, data: new Uint8Array(64), channels: 1 });
    await services.storage.put(sourceKey, png, "image/png");
    const small = encodePng({
      width: 400,
      height: 240,
      data: new Uint8Array(12000),
      depth: 1,
      channels: 1,
    });
    const cases: Array<[string, (b: PushBitmaps) => PushBitmaps, RegExp]> = [
      [
        "truncated raw2",
        (b) => ({ ...b, raw2: b.raw2.subarray(0, 47999) }),
        /image2\.raw is 47999/,
      ],
      ["truncated raw4", (b) => ({ ...b, raw4: b.raw4.subarray(0, 100) }), /image4\.raw is 100/],
      ["wrong-size PNG", (b) => ({ ...b, png: small }), /image\.png is 400x240/],
      ["PNG and raw2 differ", (b) => ({ ...b, raw2: b.raw2.map((v) => v ^ 1) }), /differ/],
    ];
    for (const [name, broken, reason] of cases) {
      const pushId = await insertPush(s, device, user.user.id, { status: "PREPARE" });
      await services.db.updateTable("pushes")
        .set({ template: "custom-image", source_key: sourceKey }).where("id", "=", pushId)
        .execute();
      const job = new PushRenderJob(services.pushes, brokenRenderer(broken, services.renderer), {
        store: services.storage,
      });
      // Permanent: recorded, not rethrown for a retry.
      await job.handle({ pushId });
      const row = await pushRow(s, pushId);
      assertEquals([row.status, row.render_prefix], ["PREPARE", null], name);
      assert.match(row.render_error ?? "", reason, name);
      const prefix = `render/${user.user.id}/${device.id}/${pushId}/`;
      assertEquals(await services.storage.head(`${prefix}image.png`), null, name);
      expectError(await api.get(`${base}/push/${pushId}`, { token }), 404);
    }
    // The twin: the real renderer's output passes and the push is served.
    const good = await insertPush(s, device, user.user.id, { status: "PREPARE" });
    await services.db.updateTable("pushes")
      .set({ template: "custom-image", source_key: sourceKey }).where("id", "=", good).execute();
    await new PushRenderJob(services.pushes, services.renderer, { store: services.storage })
      .handle({ pushId: good });
    assertEquals((await pushRow(s, good)).status, "QUEUE");
  },
);
