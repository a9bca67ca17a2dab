/**
 * The S3 adapter's policy, read back from the presigned POST itself (STACK.md: no local S3
 * server enforces POST policies, so the policy document is what we can check).
 */
import assert from "node:assert/strict";
import { S3ObjectStore } from "./s3.ts";

const store = new S3ObjectStore({
  bucket: "dds-test",
  region: "eu-west-1",
  endpoint: "http://127.0.0.1:9",
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  forcePathStyle: true,
});

Deno.test("S3 presigned POST: key, image/* content type, 10 MB range, 15 minutes", async () => {
  const before = Date.now();
  const ticket = await store.presignUpload("uploads/u/d/f", {
    contentType: "image/png",
    maxBytes: 10 * 1024 * 1024,
    expiresInSeconds: 900,
  });
  assert.match(ticket.url, /dds-test/);
  assert.equal(ticket.fields.key, "uploads/u/d/f");
  assert.equal(ticket.fields["Content-Type"], "image/png");
  const policy = JSON.parse(atob(ticket.fields.Policy));
  const expiration = Date.parse(policy.expiration);
  assert.ok(expiration - before >= 899_000 && expiration - before <= 901_000);
  assert.ok(Math.abs(ticket.expiresAt.getTime() - expiration) < 2_000);
  assert.deepEqual(
    policy.conditions.filter((c: unknown) => Array.isArray(c)),
    [["starts-with", "$Content-Type", "image/"], ["content-length-range", 1, 10485760]],
  );
  assert.ok(policy.conditions.some((c: Record<string, string>) => c.key === "uploads/u/d/f"));
  assert.ok(policy.conditions.some((c: Record<string, string>) => c.bucket === "dds-test"));
  assert.ok(ticket.fields["X-Amz-Signature"]);
});

Deno.test("S3 presigned GET: signed for 15 minutes", async () => {
  const url = new URL(await store.signedGetUrl("render/u/d/p/image.png", 900));
  assert.equal(url.pathname, "/dds-test/render/u/d/p/image.png");
  assert.equal(url.searchParams.get("X-Amz-Expires"), "900");
  assert.ok(url.searchParams.get("X-Amz-Signature"));
});

Deno.test("S3 copy: a server-side CopyObject of the encoded source into the new key", async () => {
  const seen: { method: string; path: string; source: string | null }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen.push({
      method: req.method,
      path: new URL(req.url).pathname,
      source: req.headers.get("x-amz-copy-source"),
    });
    return new Response(
      '<?xml version="1.0" encoding="UTF-8"?><CopyObjectResult><ETag>"e"</ETag>' +
        "<LastModified>2026-12-04T00:00:00.000Z</LastModified></CopyObjectResult>",
      { headers: { "content-type": "application/xml" } },
    );
  });
  try {
    const local = new S3ObjectStore({
      bucket: "dds-test",
      region: "eu-west-1",
      endpoint: `http://127.0.0.1:${server.addr.port}`,
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      forcePathStyle: true,
    });
    await local.copy("render/u/a/p 1/image.png", "render/u/b/q/image.png");
    assert.deepEqual(seen, [{
      method: "PUT",
      path: "/dds-test/render/u/b/q/image.png",
      source: "dds-test/render/u/a/p%201/image.png",
    }]);
  } finally {
    await server.shutdown();
  }
});
