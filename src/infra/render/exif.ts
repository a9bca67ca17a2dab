/**
 * The one EXIF field the render needs, Orientation (TIFF tag 274), read from a JPEG APP1
 * segment with every offset checked against the segment: a hostile IFD cannot make it read
 * outside the segment, allocate, or loop.
 */

const ORIENTATION_TAG = 0x0112;
const SHORT = 3;

/** Orientation 1-8 from an APP1 payload (after the length), or 1 when absent or malformed. */
export function exifOrientation(app1: Uint8Array): number {
  // "Exif\0\0" then a TIFF header: byte order, 42, offset of IFD0
  const exif = [0x45, 0x78, 0x69, 0x66, 0, 0];
  if (app1.length < 14 || !exif.every((b, i) => app1[i] === b)) return 1;
  const tiff = app1.subarray(6);
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  const order = view.getUint16(0);
  if (order !== 0x4949 && order !== 0x4d4d) return 1;
  const little = order === 0x4949;
  if (view.getUint16(2, little) !== 42) return 1;
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > tiff.length) return 1;
  const count = view.getUint16(ifd, little);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + 12 * i;
    if (entry + 12 > tiff.length) return 1;
    if (view.getUint16(entry, little) !== ORIENTATION_TAG) continue;
    if (view.getUint16(entry + 2, little) !== SHORT || view.getUint32(entry + 4, little) !== 1) {
      return 1;
    }
    const value = view.getUint16(entry + 8, little);
    return value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}
