import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { emptyJpeg } from "../../../tests/helpers/bombs.ts";
import { exifOrientation } from "./exif.ts";
import { guardJpeg } from "./jpeg_guard.ts";
import { MAX_JPEG_SCANS } from "./limits.ts";
import { encodeRgb, rgbPixels } from "./testing/images.ts";

function jpeg(width: number, height: number): Promise<Uint8Array> {
  const data = rgbPixels(width, height, () => [90, 120, 200]);
  return encodeRgb(data, width, height, "jpeg");
}

/** `emptyJpeg`'s frame, then `scans` scan headers each followed by `bytesPerScan` of data. */
function withScans(width: number, height: number, scans: number, bytesPerScan: number) {
  const head = emptyJpeg(width, height);
  const sos = head.subarray(head.length - 14);
  const parts = [head.subarray(0, head.length - 14)];
  for (let i = 0; i < scans; i++) parts.push(sos, new Uint8Array(bytesPerScan));
  parts.push(Uint8Array.from([0xff, 0xd9]));
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

function codeOf(result: ReturnType<typeof guardJpeg>) {
  return result.ok ? "ok" : result.code;
}

Deno.test("jpeg guard: an encoder's JPEG passes with its frame", async () => {
  const result = guardJpeg(await jpeg(64, 40));
  assert.ok(result.ok);
  assertEquals([result.frame.width, result.frame.height, result.orientation], [64, 40, 1]);
  assertEquals(result.frame.components.length, 3);
});

Deno.test("jpeg guard: a frame its scan data cannot cover is refused (1 bit per block)", () => {
  // 4000x4000, 3 components at 1x1: 750,000 blocks need at least 93,750 bytes.
  assertEquals(codeOf(guardJpeg(emptyJpeg(4000, 4000))), "undecodable");
  assertEquals(codeOf(guardJpeg(withScans(4000, 4000, 1, 93_749))), "undecodable");
  assertEquals(codeOf(guardJpeg(withScans(4000, 4000, 1, 93_750))), "ok");
});

Deno.test("jpeg guard: too many scans, two frames, lossless frames, huge frames", async () => {
  assertEquals(codeOf(guardJpeg(withScans(8, 8, MAX_JPEG_SCANS, 1))), "ok");
  assertEquals(codeOf(guardJpeg(withScans(8, 8, MAX_JPEG_SCANS + 1, 1))), "too_large");
  const one = await jpeg(8, 8);
  const frame = one.indexOf(0xc0, 2) - 1;
  const length = (one[frame + 2] << 8) | one[frame + 3];
  const sof = one.subarray(frame, frame + 2 + length);
  const twice = Uint8Array.from([...one.subarray(0, frame), ...sof, ...one.subarray(frame)]);
  assertEquals(codeOf(guardJpeg(twice)), "undecodable");
  const lossless = one.slice();
  lossless[frame + 1] = 0xc3;
  assertEquals(codeOf(guardJpeg(lossless)), "undecodable");
  // 7000x6000 = 42 megapixels
  assertEquals(codeOf(guardJpeg(withScans(7000, 6000, 1, 1_000_000))), "too_large");
  // 6000x6000 at 4:4:4: 36 MP, but jpeg-js would need far more than its memory budget.
  assertEquals(codeOf(guardJpeg(withScans(6000, 6000, 1, 300_000))), "too_large");
});

Deno.test("jpeg guard: truncated segments and garbage are refused", async () => {
  const one = await jpeg(8, 8);
  assertEquals(codeOf(guardJpeg(Uint8Array.from([0xff, 0xd8, 0xff, 0xd9]))), "undecodable");
  assertEquals(codeOf(guardJpeg(one.subarray(0, 30))), "undecodable");
  assertEquals(codeOf(guardJpeg(Uint8Array.from([0xff, 0xd8, 0x00, 0x00]))), "undecodable");
  // Issue 25: without its end-of-image marker (libjpeg-turbo refuses it: "premature end").
  assertEquals(codeOf(guardJpeg(one.subarray(0, one.length - 2))), "undecodable");
  assertEquals(codeOf(guardJpeg(withScans(8, 8, 1, 8).subarray(0, -2))), "undecodable");
});

Deno.test("jpeg guard: a walk of more than 10,000 markers or fill bytes stops there", () => {
  const frame = withScans(8, 8, 1, 8);
  const comments = (count: number) =>
    Uint8Array.from([
      0xff,
      0xd8,
      ...Array.from({ length: count }, () => [0xff, 0xfe, 0, 2]).flat(),
      ...frame.subarray(2),
    ]);
  assertEquals(codeOf(guardJpeg(comments(9_000))), "ok");
  assertEquals(codeOf(guardJpeg(comments(10_000))), "undecodable");
  const fill = Uint8Array.from([0xff, 0xd8, ...new Array(20_000).fill(0xff), ...frame.subarray(2)]);
  assertEquals(codeOf(guardJpeg(fill)), "undecodable");
});

/** An APP1 payload with IFD0 holding one Orientation entry. */
function exif(value: number, little: boolean, options: { type?: number; ifd?: number } = {}) {
  const tiff = new Uint8Array(26);
  const view = new DataView(tiff.buffer);
  tiff.set(little ? [0x49, 0x49] : [0x4d, 0x4d]);
  view.setUint16(2, 42, little);
  view.setUint32(4, options.ifd ?? 8, little);
  view.setUint16(8, 1, little);
  view.setUint16(10, 0x0112, little);
  view.setUint16(12, options.type ?? 3, little);
  view.setUint32(14, 1, little);
  view.setUint16(18, value, little);
  return Uint8Array.from([0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff]);
}

Deno.test("exif: Orientation in either byte order; anything odd is 1", () => {
  assertEquals(exifOrientation(exif(6, false)), 6);
  assertEquals(exifOrientation(exif(8, true)), 8);
  assertEquals(exifOrientation(exif(9, true)), 1);
  assertEquals(exifOrientation(exif(6, true, { type: 4 })), 1);
  assertEquals(exifOrientation(exif(6, true, { ifd: 0xfffffff0 })), 1);
  assertEquals(exifOrientation(exif(6, true).subarray(0, 20)), 1);
  assertEquals(exifOrientation(new TextEncoder().encode("http://ns.adobe.com/xap/1.0/")), 1);
});
