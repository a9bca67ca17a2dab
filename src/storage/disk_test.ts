import assert from "node:assert/strict";
import { DiskObjectStore } from "./disk.ts";
import { isSafeKey } from "./keys.ts";
import { decodePolicy, downloadMessage, verify } from "./signing.ts";

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

Deno.test("disk store: keys cannot escape the store", () =>
  withStore(async (store) => {
    for (const key of ["../x", "a/../../x", "/etc/passwd", "a//b", "a/./b", "a b"]) {
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
