/**
 * The benchmarks' upload: a 1600x1200 colour JPEG (quality 85), the size of a typical phone photo
 * after the client's resize, with smooth gradients and fine detail so every stage has work to do.
 */
import sharp from "sharp";

/** The photo; `variant` shifts its pattern so several uploads are not identical. */
export async function benchPhoto(variant = 0): Promise<Uint8Array> {
  const width = 1600;
  const height = 1200;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0, p = 0; y < height; y++) {
    for (let x = 0; x < width; x++, p += 3) {
      data[p] = (x * 255) / width;
      data[p + 1] = (y * 255) / height;
      data[p + 2] = ((x + variant) ^ y) & 0xff;
    }
  }
  const jpeg = await sharp(data, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 }).toBuffer();
  return new Uint8Array(jpeg);
}
