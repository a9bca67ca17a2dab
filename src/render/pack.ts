/** Bit packing of dithered level indexes into the device formats (SPEC 4.5 raw2 / raw4). */

/**
 * 1 bpp: 8 pixels per byte, row-major, the leftmost pixel in the most significant bit,
 * 1 = white, 0 = black. Rows are padded to whole bytes (800 px rows need none: 100 bytes each).
 */
export function pack1bpp(levels: Uint8Array, width: number, height: number): Uint8Array {
  const stride = Math.ceil(width / 8);
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const source = y * width;
    const target = y * stride;
    for (let x = 0; x < width; x++) {
      if (levels[source + x]) out[target + (x >> 3)] |= 0x80 >> (x & 7);
    }
  }
  return out;
}

/**
 * 2 bpp: 4 pixels per byte, row-major, the leftmost pixel in the two most significant bits.
 * The two bits are the level index: 00 black, 01 dark grey, 10 light grey, 11 white.
 */
export function pack2bpp(levels: Uint8Array, width: number, height: number): Uint8Array {
  const stride = Math.ceil(width / 4);
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const source = y * width;
    const target = y * stride;
    for (let x = 0; x < width; x++) {
      out[target + (x >> 2)] |= (levels[source + x] & 3) << (6 - 2 * (x & 3));
    }
  }
  return out;
}
