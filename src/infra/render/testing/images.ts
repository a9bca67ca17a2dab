/** Test and benchmark images made with sharp (the render's own codec library), no downloads. */
import sharp from "sharp";

/** RGB pixels from a function of the position. */
export function rgbPixels(
  width: number,
  height: number,
  colour: (x: number, y: number) => [number, number, number],
): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0, p = 0; y < height; y++) {
    for (let x = 0; x < width; x++, p += 3) data.set(colour(x, y), p);
  }
  return data;
}

/** Encodes RGB pixels in one of the accepted formats (first frame only for GIF). */
export async function encodeRgb(
  data: Uint8Array,
  width: number,
  height: number,
  format: "jpeg" | "png" | "webp" | "gif" | "avif" | "tiff",
  options: { quality?: number } = {},
): Promise<Uint8Array> {
  const image = sharp(data, { raw: { width, height, channels: 3 } });
  const quality = options.quality ?? 85;
  const encoded = format === "jpeg"
    ? image.jpeg({ quality })
    : format === "webp"
    ? image.webp({ quality })
    : format === "avif"
    ? image.avif({ quality: 50, effort: 0 })
    : format === "gif"
    ? image.gif()
    : format === "tiff"
    ? image.tiff()
    : image.png();
  return new Uint8Array(await encoded.toBuffer());
}

/** A JPEG of a smooth colour gradient (a stand-in photo). */
export function gradientJpeg(width: number, height: number, quality = 85): Promise<Uint8Array> {
  const data = rgbPixels(width, height, (x, y) => [(x * 255) / width, (y * 255) / height, 128]);
  return encodeRgb(data, width, height, "jpeg", { quality });
}
