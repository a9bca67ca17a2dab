/**
 * The embedded object store over HTTP (CONTRACT.md storage, issue 16, issue 8): the streamed
 * upload checks its policy before the file, stores one object per ticket with its sniffed
 * type, and serves objects as inert files; keys cannot leave the store.
 */
import { encode as encodePng } from "fast-png";
import { assert, assertEquals } from "./helpers/assert.ts";
import {
  formBody,
  type Part,
  postForm,
  rawPost,
  streamedForm,
  ticketParts,
} from "./helpers/forms.ts";
import { serverSuite } from "./helpers/suite.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import { bombs } from "./helpers/bombs.ts";
import { createDevice, pushRow } from "./helpers/devices.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { eventually } from "./helpers/mqtt.ts";
import { expectError, expectStatus } from "./helpers/assert.ts";
import type { TestServer } from "./helpers/server.ts";
import { DiskObjectStore } from "../src/infra/storage/disk.ts";
import { downloadMessage, encodePolicy, sign } from "../src/infra/storage/signing.ts";
import { FIELDS_BUDGET, MAX_FIELD_BYTES, MAX_FIELDS } from "../src/infra/storage/upload_route.ts";

const suite = serverSuite("storage");
const MiB = 1024 * 1024;

function store(s: TestServer): DiskObjectStore {
  const storage = s.app.services.storage;
  assert.ok(storage instanceof DiskObjectStore);
  return storage;
}

/** A small grey PNG whose pixels depend on `seed`, so two uploads differ. */
function png(seed = 0): Uint8Array {
  const data = new Uint8Array(16 * 8).map((_, i) => (i * 7 + seed) % 256);
  return encodePng({ width: 16, height: 8, data, channels: 1, depth: 8 });
}

let keyCounter = 0;

/** A fresh ticket straight from the store: 10 MB unless told otherwise, image/* only. */
async function ticket(s: TestServer, options: { maxBytes?: number; contentType?: string } = {}) {
  const key = `uploads/test/${crypto.randomUUID()}-${keyCounter++}`;
  const t = await store(s).presignUpload(key, {
    contentType: options.contentType ?? "image/png",
    maxBytes: options.maxBytes ?? 10 * MiB,
    expiresInSeconds: 900,
  });
  return { ...t, key };
}

async function stored(s: TestServer, key: string) {
  return { info: await store(s).head(key), bytes: await store(s).get(key) };
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** The last character of a 32-byte base64url value with its two unused bits changed. */
function otherSpelling(last: string): string {
  return BASE64URL[BASE64URL.indexOf(last) ^ 1];
}

/** The highest resident size seen while `work` runs. */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ growth: number; result: T }> {
  const before = Deno.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 5);
  try {
    const result = await work();
    return { growth: Math.max(peak, Deno.memoryUsage().rss) - before, result };
  } finally {
    clearInterval(timer);
  }
}

suite.test(
  "forged uploads are refused before the file is read: 40 concurrent 10 MB bodies",
  async (_api, s) => {
    const t = await ticket(s);
    const file = new Uint8Array(10 * MiB);
    const forged = { ...t.fields, signature: sign("not-the-secret", t.fields.policy) };
    const uploads = Array.from({ length: 40 }, () => streamedForm(forged, file));
    const { growth, result } = await peakGrowth(() =>
      Promise.all(uploads.map((u) => postForm(t.url, u.form)))
    );
    assertEquals(result.map((r) => r.status), new Array(40).fill(403));
    assert.match(result[0].error!, /signature is invalid/);
    // Reading and parsing each whole body first took 0.44 → 1.4 GB; the fields cost kilobytes.
    assert.ok(growth < 100 * MiB, `resident size grew ${(growth / MiB).toFixed(0)} MiB`);
    for (const u of uploads) assert.ok(u.stats.pulled < 5 * MiB, `pulled ${u.stats.pulled}`);
    assertEquals(await stored(s, t.key), { info: null, bytes: null });
  },
);

suite.test(
  "policy violations are 403 before the file: signature, expiry, key, content type",
  async (_api, s) => {
    const t = await ticket(s);
    const secret = store(s).secret;
    const expiredPolicy = encodePolicy({
      key: t.key,
      contentTypePrefix: "image/",
      maxBytes: 10 * MiB,
      expires: Math.floor(Date.now() / 1000) - 1,
    });
    const signature = t.fields.signature;
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ ...t.fields, signature: "" }, /missing/],
      [{ key: t.key, "Content-Type": "image/png", policy: t.fields.policy }, /missing/],
      [{ ...t.fields, signature: signature.slice(0, -1) }, /signature is invalid/],
      // Another spelling of the same bytes (unused low bits of the last character) is refused.
      [
        { ...t.fields, signature: signature.slice(0, -1) + otherSpelling(signature.at(-1)!) },
        /invalid/,
      ],
      [{ ...t.fields, signature: signature + "=" }, /signature is invalid/],
      // The download signature of the same key is no upload signature.
      [{ ...t.fields, signature: sign(secret, downloadMessage(t.key, 9e9)) }, /invalid/],
      [{ ...t.fields, policy: expiredPolicy, signature: sign(secret, expiredPolicy) }, /expired/],
      [{ ...t.fields, key: `${t.key}x` }, /Key does not match/],
      [{ ...t.fields, "Content-Type": "text/html" }, /not allowed/],
    ];
    for (const [fields, message] of cases) {
      const reply = await postForm(t.url, formBody(ticketParts(fields, png())));
      assertEquals(reply.status, 403, JSON.stringify(fields));
      assert.match(reply.error!, message);
    }
    assertEquals(await stored(s, t.key), { info: null, bytes: null });
    // None of them used the ticket up.
    assertEquals((await postForm(t.url, formBody(ticketParts(t.fields, png())))).status, 204);
  },
);

suite.test(
  "a signed policy for a key no store can hold is refused and writes nothing",
  async (_api, s) => {
    const secret = store(s).secret;
    for (const key of ["../outside", "uploads/../../secrets.json", "/etc/passwd", "a\\b", "a\0b"]) {
      const policy = encodePolicy({
        key,
        contentTypePrefix: "image/",
        maxBytes: 1000,
        expires: Math.floor(Date.now() / 1000) + 60,
      });
      const fields = { key, "Content-Type": "image/png", policy, signature: sign(secret, policy) };
      const reply = await postForm(
        `${s.url}/storage/upload`,
        formBody(ticketParts(fields, png())),
      );
      assertEquals([reply.status, reply.error], [403, "Upload policy is malformed"], key);
    }
  },
);

suite.test(
  "a ticket stores one object once; a replay is 403 and changes nothing",
  async (_api, s) => {
    const t = await ticket(s);
    const first = png(1);
    assertEquals((await postForm(t.url, formBody(ticketParts(t.fields, first)))).status, 204);
    const replay = await postForm(t.url, formBody(ticketParts(t.fields, png(2))));
    assertEquals([replay.status, replay.error], [403, "Upload ticket has already been used"]);
    assertEquals(await stored(s, t.key), {
      info: { size: first.length, contentType: "image/png" },
      bytes: first,
    });
    // Deleting the object does not make the (still valid) ticket usable again.
    await store(s).deletePrefix(t.key);
    assertEquals((await postForm(t.url, formBody(ticketParts(t.fields, png(3))))).status, 403);
    assertEquals(await stored(s, t.key), { info: null, bytes: null });
  },
);

suite.test("concurrent uploads with one ticket: exactly one is stored", async (_api, s) => {
  const t = await ticket(s);
  const images = Array.from({ length: 8 }, (_, i) => png(10 + i));
  const replies = await Promise.all(
    images.map((image) => postForm(t.url, formBody(ticketParts(t.fields, image)))),
  );
  const statuses = replies.map((r) => r.status);
  assertEquals(statuses.filter((x) => x === 204).length, 1, String(statuses));
  assertEquals(statuses.filter((x) => x === 403).length, 7, String(statuses));
  assertEquals((await stored(s, t.key)).bytes, images[statuses.indexOf(204)]);
});

suite.test(
  "over the policy's size: 413, nothing stored, the ticket still works",
  async (_api, s) => {
    const t = await ticket(s, { maxBytes: 1000 });
    const big = new Uint8Array(1001);
    big.set(png().subarray(0, 32));
    const reply = await postForm(t.url, formBody(ticketParts(t.fields, big)));
    assertEquals(reply.status, 413);
    assert.match(reply.error!, /1000 byte limit/);
    assertEquals(await stored(s, t.key), { info: null, bytes: null });
    // A declared Content-Length that cannot fit is refused before the body is read: over any
    // policy at once, over this policy right after the fields (nothing claimed either way).
    const type = { "content-type": "multipart/form-data; boundary=dds-test-boundary-7MA4YWxk" };
    const huge = { ...type, "content-length": "99999999" };
    assertEquals(await rawPost(t.url, huge, new Uint8Array(10)), 413);
    const fieldsOnly = formBody(ticketParts(t.fields, new Uint8Array(0)), { close: false }).body;
    const fieldsEnd = fieldsOnly.length - 2; // without the file part's trailing CRLF
    const over = { ...type, "content-length": String(fieldsEnd + 5000) };
    assertEquals(await rawPost(t.url, over, fieldsOnly.subarray(0, fieldsEnd)), 413);
    assertEquals((await postForm(t.url, formBody(ticketParts(t.fields, png())))).status, 204);
  },
);

suite.test(
  "form structure: fields first and bounded, file last and whole; 400 stores nothing",
  async (_api, s) => {
    const t = await ticket(s);
    const image = png();
    const file: Part = { name: "file", value: image, filename: "a.png", type: "image/png" };
    const fields = ticketParts(t.fields, image).slice(0, -1);
    const extra = (n: number, size = 1): Part[] =>
      Array.from({ length: n }, (_, i) => ({ name: `x-extra-${i}`, value: "v".repeat(size) }));
    const cases: Array<[string, { body: BodyInit; contentType: string }, RegExp]> = [
      ["file not last", formBody([...fields, file, { name: "note", value: "x" }]), /come last/],
      ["file first", formBody([file, ...fields]), /missing/],
      ["duplicate key", formBody([...fields, { name: "KEY", value: t.key }, file]), /twice/],
      ["too many fields", formBody([...extra(MAX_FIELDS), ...fields, file]), /more than/],
      ["oversized field", formBody([...extra(1, MAX_FIELD_BYTES + 1), ...fields, file]), /over/],
      [
        "fields over budget",
        formBody([...extra(MAX_FIELDS - 4, MAX_FIELD_BYTES), ...fields, file]),
        /over 65536 bytes/,
      ],
      ["no file", formBody(fields), /no file field/],
      ["empty file", formBody([...fields, { ...file, value: new Uint8Array(0) }]), /empty/],
      ["truncated", formBody([...fields, file], { close: false }), /ended before/],
      ["no boundary", { body: "x", contentType: "multipart/form-data" }, /boundary/],
      ["not multipart", { body: "x", contentType: "application/json" }, /multipart/],
    ];
    assert.ok((MAX_FIELDS - 4) * MAX_FIELD_BYTES > FIELDS_BUDGET);
    for (const [name, form, message] of cases) {
      const reply = await postForm(t.url, form);
      assertEquals(reply.status, name === "file first" ? 403 : 400, name);
      assert.match(reply.error!, message, name);
      assertEquals(await stored(s, t.key), { info: null, bytes: null }, name);
    }
    // A preamble, a quoted boundary and unknown fields are fine; the ticket was never used up.
    const preamble = formBody([...extra(2), ...fields, file], { boundary: "b 1" });
    const body = new Uint8Array([...new TextEncoder().encode("preamble\r\n"), ...preamble.body]);
    const reply = await postForm(t.url, {
      body,
      contentType: 'multipart/form-data; boundary="b 1"',
    });
    assertEquals(reply.status, 204);
    assertEquals((await stored(s, t.key)).bytes, image);
  },
);

suite.test(
  "the stored content type is the sniffed one; non-images are refused",
  async (_api, s) => {
    const svg = new TextEncoder().encode(
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    );
    const asSvg = await ticket(s, { contentType: "image/svg+xml" });
    const refused = await postForm(
      asSvg.url,
      formBody(ticketParts(asSvg.fields, svg)),
    );
    assertEquals([refused.status, refused.error], [
      403,
      "File content is not image/* the upload policy allows",
    ]);
    assertEquals(await stored(s, asSvg.key), { info: null, bytes: null });
    // The same ticket with real PNG bytes: stored as image/png, whatever was declared.
    assertEquals(
      (await postForm(asSvg.url, formBody(ticketParts(asSvg.fields, png())))).status,
      204,
    );
    assertEquals((await stored(s, asSvg.key)).info?.contentType, "image/png");
  },
);

/** A signed download URL for any key (the test holds the store's secret). */
function signedUrl(s: TestServer, key: string, expires = Math.floor(Date.now() / 1000) + 900) {
  const signature = sign(store(s).secret, downloadMessage(key, expires));
  return `${s.url}/storage/objects/${
    encodeURIComponent(key)
  }?expires=${expires}&signature=${signature}`;
}

suite.test(
  "downloads: nosniff, pictures inline, anything else an attachment, sandboxed, short cache",
  async (_api, s) => {
    const cases: Array<[string, string, string]> = [
      ["image/png", "image/png", "inline"],
      ["application/octet-stream", "application/octet-stream", "attachment"],
      // Objects stored with a type a browser would run (say before sniffing existed).
      ["image/svg+xml", "application/octet-stream", "attachment"],
      ["text/html", "application/octet-stream", "attachment"],
    ];
    for (const [storedType, servedType, disposition] of cases) {
      const key = `render/test/${crypto.randomUUID()}/image.bin`;
      await store(s).put(key, new TextEncoder().encode("<svg onload=alert(1)>"), storedType);
      const res = await fetchChecked(signedUrl(s, key, Math.floor(Date.now() / 1000) + 30));
      assertEquals(res.status, 200, storedType);
      assertEquals(res.headers.get("content-type"), servedType, storedType);
      assertEquals(res.headers.get("content-disposition"), `${disposition}; filename="image.bin"`);
      assertEquals(res.headers.get("x-content-type-options"), "nosniff");
      assert.match(res.headers.get("content-security-policy") ?? "", /sandbox/);
      // Never cached past the URL's own expiry (30 s here), nor by a shared cache.
      const maxAge = Number(
        res.headers.get("cache-control")?.match(/^private, max-age=(\d+)$/)?.[1],
      );
      assert.ok(maxAge <= 30 && maxAge >= 25, res.headers.get("cache-control") ?? "");
      assertEquals(await res.text(), "<svg onload=alert(1)>");
    }
    const missing = await fetchChecked(signedUrl(s, "render/test/none"));
    assertEquals([missing.status, missing.headers.get("cache-control")], [404, "no-store"]);
    await missing.body?.cancel();
  },
);

suite.test(
  "download keys cannot leave the store: traversal, separators, NUL, absolute, overlong",
  async (_api, s) => {
    const keys = [
      "../secrets.json",
      "..",
      "render/../../secrets.json",
      "render/..\\..\\secrets.json",
      "render\\..\\secrets.json",
      "/etc/passwd",
      "render/a\0.png",
      "render//a",
      "render/a/",
      "render/%2e%2e/x",
      `render/${"a".repeat(600)}`,
      `render/${"a".repeat(250)}/b`,
    ];
    for (const key of keys) {
      // Correctly signed (the test holds the secret): the key itself is refused.
      // (`..` alone never reaches the route: URL parsing resolves it to another path.)
      const res = await fetchChecked(signedUrl(s, key));
      assertEquals(res.status, 404, key);
      await res.body?.cancel();
    }
    // A malformed escape and an unsigned request stay 4xx too.
    for (const path of ["%E0%A4%A", "..%2Fsecrets.json", "%2e%2e%2fsecrets.json"]) {
      const res = await fetchChecked(
        `${s.url}/storage/objects/${path}?expires=9999999999&signature=x`,
      );
      assert.ok(res.status === 403 || res.status === 404, `${path}: ${res.status}`);
      await res.body?.cancel();
    }
    // A valid URL with an expires spelled another way is not the signed one.
    const key = `render/test/${crypto.randomUUID()}`;
    await store(s).put(key, png(), "image/png");
    const url = new URL(signedUrl(s, key));
    url.searchParams.set("expires", `0${url.searchParams.get("expires")}`);
    const res = await fetchChecked(url);
    assertEquals(res.status, 403);
    await res.body?.cancel();
  },
);

/** A user with a bound device and a custom-push ticket for it. */
async function customPushTicket(api: Client, s: TestServer, contentType = "image/png") {
  const user = await registerUser(api);
  const device = await createDevice(s, user.user.id);
  const base = `/api/devices/${device.id}`;
  const token = user.accessToken;
  const ticket = expectStatus(
    await api.post(`${base}/custom-push/upload`, { token, body: { contentType } }),
    200,
  );
  return { base, token, ticket, user };
}

/** Uploads and confirms a custom push; the confirmed copy's key. */
async function confirmedCopy(api: Client, s: TestServer) {
  const { base, token, ticket: t, user } = await customPushTicket(api, s);
  assertEquals((await postForm(t.url, formBody(ticketParts(t.fields, png(7))))).status, 204);
  const { pushId } = expectStatus(
    await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: t.fileId } }),
    200,
  );
  const key = (await pushRow(s, pushId)).source_key!;
  assert.ok((await store(s).head(key)) !== null);
  return { base, token, key, user };
}

suite.test(
  "confirm keeps the bytes it checked: replays, before or after, never reach the render",
  async (api, s) => {
    const { base, token, ticket: t } = await customPushTicket(api, s, "image/svg+xml");
    const staging = t.fields.key;
    const original = png(42);
    assertEquals((await postForm(t.url, formBody(ticketParts(t.fields, original)))).status, 204);
    const { pushId } = expectStatus(
      await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: t.fileId } }),
      200,
    );
    const push = await pushRow(s, pushId);
    const file = await s.app.services.db.selectFrom("files").selectAll()
      .where("id", "=", t.fileId).executeTakeFirstOrThrow();
    // The render reads a copy under files/, which no ticket can write; its type is the sniffed
    // one, not the declared image/svg+xml.
    assert.ok(push.source_key?.startsWith(`files/${file.user_id}/`), push.source_key ?? "");
    assertEquals([file.object_key, file.content_type, Number(file.size_bytes)], [
      push.source_key,
      "image/png",
      original.length,
    ]);
    assertEquals(await stored(s, push.source_key!), {
      info: { size: original.length, contentType: "image/png" },
      bytes: original,
    });
    // The staging object is gone, and the embedded store refuses the ticket a second time.
    assertEquals(await stored(s, staging), { info: null, bytes: null });
    assertEquals((await postForm(t.url, formBody(ticketParts(t.fields, png(43))))).status, 403);
    // S3 would accept the replay: the staging key changes, the confirmed copy does not.
    await store(s).put(staging, new TextEncoder().encode("<svg/>"), "image/svg+xml");
    assertEquals((await stored(s, push.source_key!)).bytes, original);
    expectError(
      await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: t.fileId } }),
      409,
    );
    await eventually(async () => (await pushRow(s, pushId)).status === "QUEUE", "render");
  },
);

suite.test(
  "a decompression bomb upload ends as a recorded render failure, memory bounded",
  async (api, s) => {
    const bomb = (await bombs()).find((b) => b.name === "PNG IDAT bomb")!;
    const { base, token, ticket: t } = await customPushTicket(api, s);
    assertEquals((await postForm(t.url, formBody(ticketParts(t.fields, bomb.bytes)))).status, 204);
    const { growth, result: failed } = await peakGrowth(async () => {
      const { pushId } = expectStatus(
        await api.post(`${base}/custom-push/confirm`, { token, body: { fileId: t.fileId } }),
        200,
      );
      return await eventually(async () => {
        const row = await pushRow(s, pushId);
        return row.render_error ? row : null;
      }, "render failure");
    });
    // Header 800x480 (384,480 bytes of rows), IDAT inflating to 256 MiB: refused at the cap.
    assertEquals([failed.status, failed.render_prefix, failed.file_id], ["PREPARE", null, null]);
    assert.match(failed.render_error!, /inflates past the 384480 bytes/);
    assert.ok(growth < 128 * MiB, `resident size grew ${(growth / MiB).toFixed(0)} MiB`);
  },
);

suite.test("unbind and account deletion delete confirmed copies too", async (api, s) => {
  const unbound = await confirmedCopy(api, s);
  expectStatus(await api.post(`${unbound.base}/unbind`, { token: unbound.token }), 200);
  await eventually(async () => (await store(s).head(unbound.key)) === null, "unbind cleanup");
  const deleted = await confirmedCopy(api, s);
  const reply = await api.delete("/auth/account", {
    token: deleted.token,
    body: { confirm: true, password: deleted.user.password },
  });
  assertEquals(reply.status, 204);
  await eventually(async () => (await store(s).head(deleted.key)) === null, "deletion cleanup");
});

suite.end();
