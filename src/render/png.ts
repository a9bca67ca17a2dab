/** The `image.png` rendition: a real 1-bit greyscale PNG. */
import { encode } from "fast-png";

/**
 * Encodes 1 bpp packed rows (MSB first, 1 = white) as a 1-bit grey PNG. PNG's own 1-bit grey
 * layout is exactly that, so `image.png` and `image2.raw` share one packing.
 */
export function encodePng1Bit(packed: Uint8Array, width: number, height: number): Uint8Array {
  return encode({ width, height, data: packed, depth: 1, channels: 1 });
}
