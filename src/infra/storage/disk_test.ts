import assert from "node:assert/strict";
import { DiskObjectStore } from "./disk.ts";
import { isSafeKey } from "./keys.ts";
import { decodePolicy, downloadMessage, encodePolicy, sign, verify } from "./signing.ts";

async function withStore(fn: (store: DiskObjectStore) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "dds-disk-" });
  try {
    await fn(new DiskObjectStore(dir, "secret-key", () => "http://files.test"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("disk store: put, get, head and deletePrefix", () =>
  withStore(async (store) => {
    await store.put("render/u/d/p/image.png", new Uint8Array([1, 2, 3]), "image/png");
    await store.put("render/u/d/q/image.png", new Uint8Array([4]), "image/png");
    assert.deepEqual(await store.get("render/u/d/p/image.png"), new Uint8Array([1, 2, 3]));
    assert.deepEqual(await store.head("render/u/d/p/image.png"), {
      size: 3,
      contentType: "image/png",
    });
    assert.equal(await store.get("render/u/d/missing"), null);
    assert.equal(await store.head("render/u/d/missing"), null);
    await store.deletePrefix("render/u/d/p/");
    assert.equal(await store.get("render/u/d/p/image.png"), null);
    assert.equal(await store.head("render/u/d/p/image.png"), null);
    assert.ok(await store.get("render/u/d/q/image.png"));
    await store.deletePrefix("nothing/here/");
  }));

Deno.test("disk store: copy is a whole object of its own under the new key", () =>
  withStore(async (store) => {
    await store.put("render/u/a/p/image.png", new Uint8Array([1, 2, 3]), "image/png");
    // Into a new directory, then over an existing object.
    await store.copy("render/u/a/p/image.png", "render/u/b/q/image.png");
    await store.put("render/u/c/r/image.png", new Uint8Array([9]), "application/octet-stream");
    await store.copy("render/u/a/p/image.png", "render/u/c/r/image.png");
    for (const key of ["render/u/b/q/image.png", "render/u/c/r/image.png"]) {
      assert.deepEqual(await store.get(key), new Uint8Array([1, 2, 3]));
      assert.deepEqual(await store.head(key), { size: 3, contentType: "image/png" });
    }
    // Replacing or deleting the source leaves the copies as they were, and the other way round.
    await store.put("render/u/a/p/image.png", new Uint8Array([7, 7]), "image/bmp");
    assert.deepEqual(await store.get("render/u/b/q/image.png"), new Uint8Array([1, 2, 3]));
    await store.deletePrefix("render/u/a/");
    await store.deletePrefix("render/u/b/");
    assert.deepEqual(await store.get("render/u/c/r/image.png"), new Uint8Array([1, 2, 3]));
    await assert.rejects(
      store.copy("render/u/missing/image.png", "render/u/d/s/image.png"),
      Deno.errors.NotFound,
    );
    assert.equal(await store.head("render/u/d/s/image.png"), null);
    await assert.rejects(store.copy("render/u/c/r/image.png", "../x"));
  }));

Deno.test("disk store: keys cannot escape the store", () =>
  withStore(async (store) => {
    const keys = [
      "../x",
      "a/../../x",
      "/etc/passwd",
      "a//b",
      "a/./b",
      "a b",
      "a\\b",
      "a\0b",
      "a%2Fb",
      "a/",
      "",
      "x".repeat(513),
      `a/${"x".repeat(201)}`,
      "é",
    ];
    for (const key of keys) {
      assert.equal(isSafeKey(key), false, key);
      await assert.rejects(store.put(key, new Uint8Array(1), "image/png"));
    }
    assert.ok(isSafeKey("uploads/u/d/0193-ab.png"));
  }));

Deno.test("disk store: upload tickets carry a signed policy for one key, type and size", () =>
  withStore(async (store) => {
    const ticket = await store.presignUpload("uploads/u/d/f", {
      contentType: "image/jpeg",
      maxBytes: 1000,
      expiresInSeconds: 900,
    });
    assert.equal(ticket.url, "http://files.test/storage/upload");
    assert.deepEqual(Object.keys(ticket.fields), ["key", "Content-Type", "policy", "signature"]);
    assert.ok(verify("secret-key", ticket.fields.policy, ticket.fields.signature));
    assert.ok(!verify("other-key", ticket.fields.policy, ticket.fields.signature));
    const policy = decodePolicy(ticket.fields.policy)!;
    assert.equal(policy.key, "uploads/u/d/f");
    assert.equal(policy.contentTypePrefix, "image/");
    assert.equal(policy.maxBytes, 1000);
    assert.equal(policy.expires, Math.floor(ticket.expiresAt.getTime() / 1000));
  }));

Deno.test("disk store: signed GET URLs sign the key and the expiry", () =>
  withStore(async (store) => {
    const url = new URL(await store.signedGetUrl("render/u/d/p/image2.raw", 900));
    assert.equal(url.pathname, "/storage/objects/render%2Fu%2Fd%2Fp%2Fimage2.raw");
    const expires = Number(url.searchParams.get("expires"));
    assert.ok(Math.abs(expires - (Date.now() / 1000 + 900)) < 5);
    const message = downloadMessage("render/u/d/p/image2.raw", expires);
    assert.ok(verify("secret-key", message, url.searchParams.get("signature")!));
    assert.ok(
      !verify(
        "secret-key",
        downloadMessage("render/u/d/p/image4.raw", expires),
        url.searchParams.get("signature")!,
      ),
    );
  }));

Deno.test("disk store: an upload claims its key once; abort gives it back, commit keeps it", () =>
  withStore(async (store) => {
    const expires = Math.floor(Date.now() / 1000) + 60;
    const uploads = await Promise.all(
      Array.from({ length: 5 }, () => store.beginUpload("uploads/u/d/f", expires)),
    );
    assert.equal(uploads.filter(Boolean).length, 1);
    const first = uploads.find(Boolean)!;
    await first.write(new Uint8Array([1, 2]));
    await first.abort();
    assert.equal(await store.head("uploads/u/d/f"), null);
    const second = (await store.beginUpload("uploads/u/d/f", expires))!;
    await second.write(new Uint8Array([3, 4, 5]));
    await second.commit("image/png");
    assert.deepEqual(await store.get("uploads/u/d/f"), new Uint8Array([3, 4, 5]));
    assert.equal(await store.beginUpload("uploads/u/d/f", expires), null);
    // Deleting the object keeps a live claim; an expired claim goes with its prefix.
    await store.delete("uploads/u/d/f");
    await store.deletePrefix("uploads/u/");
    assert.equal(await store.head("uploads/u/d/f"), null);
    assert.equal(await store.beginUpload("uploads/u/d/f", expires), null);
    const old = (await store.beginUpload("uploads/u/d/g", expires - 120))!;
    await old.commit("image/png");
    await store.deletePrefix("uploads/u/");
    assert.ok(await store.beginUpload("uploads/u/d/g", expires));
  }));

Deno.test("signing: one spelling per signature; policies with unsafe keys do not decode", () => {
  const signature = sign("k", "message");
  assert.ok(verify("k", "message", signature));
  for (const other of [signature + "=", signature.slice(0, -1), ` ${signature}`, ""]) {
    assert.equal(verify("k", "message", other), false, other);
  }
  const policy = { key: "../x", contentTypePrefix: "image/", maxBytes: 1, expires: 1 };
  assert.equal(decodePolicy(encodePolicy(policy)), null);
  assert.equal(decodePolicy(encodePolicy({ ...policy, key: "a/b", maxBytes: 0 })), null);
  assert.equal(decodePolicy(encodePolicy({ ...policy, key: "a/b", contentTypePrefix: "" })), null);
  assert.ok(decodePolicy(encodePolicy({ ...policy, key: "a/b" })));
  assert.equal(decodePolicy("not base64!"), null);
});
