import assert from "node:assert/strict";
import { INLINE_TYPES, sniffImageType } from "./sniff.ts";

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

Deno.test("sniff: BMP needs a DIB header size after BM; text starting with BM is no image", () => {
  const bmp = new Uint8Array(32);
  bmp.set([0x42, 0x4d]);
  new DataView(bmp.buffer).setUint32(14, 40, true);
  assert.equal(sniffImageType(bmp), "image/bmp");
  assert.equal(sniffImageType(new TextEncoder().encode("BMW drives are fun, really")), null);
});

Deno.test("sniff: SVG and HTML are never recognised, and never inline", () => {
  for (const text of ["<svg xmlns='http://www.w3.org/2000/svg'/>", "<!doctype html><script>"]) {
    assert.equal(sniffImageType(new TextEncoder().encode(text)), null);
  }
  for (const type of ["image/svg+xml", "text/html", "application/xhtml+xml", "text/xml"]) {
    assert.equal(INLINE_TYPES.has(type), false, type);
  }
});
