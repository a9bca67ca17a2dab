import assert from "node:assert/strict";
import { sniffImageType } from "./image_sniff.ts";

Deno.test("image types are recognised by their magic bytes", () => {
  assert.equal(
    sniffImageType(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10, 0])),
    "image/png",
  );
  assert.equal(sniffImageType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])), "image/jpeg");
  const webp = new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 ");
  assert.equal(sniffImageType(webp), "image/webp");
  assert.equal(sniffImageType(new TextEncoder().encode("<svg></svg>")), null);
  assert.equal(sniffImageType(new Uint8Array(0)), null);
  assert.equal(sniffImageType(new Uint8Array([0x49, 0x49, 0x2a, 0x00])), "image/tiff");
});
