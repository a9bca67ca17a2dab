import { assertEquals } from "../../../tests/helpers/assert.ts";
import { encodePng1Bit } from "./png.ts";
import { sniffImage } from "./sniff.ts";
import { encodeRgb, gradientJpeg } from "./testing/images.ts";

const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

Deno.test("sniff: PNG and JPEG with their sizes", async () => {
  assertEquals(sniffImage(encodePng1Bit(new Uint8Array(2 * 3), 9, 3)), {
    format: "png",
    width: 9,
    height: 3,
  });
  const jpeg = await gradientJpeg(7, 5);
  assertEquals(sniffImage(jpeg), { format: "jpeg", width: 7, height: 5 });
});

Deno.test("sniff: other formats by magic bytes, unknown is undefined", () => {
  assertEquals(sniffImage(ascii("RIFF\0\0\0\0WEBPVP8 ")), { format: "webp" });
  assertEquals(sniffImage(ascii("GIF89a")), { format: "gif" });
  assertEquals(sniffImage(ascii("II*\0\x08\0\0\0")), { format: "tiff" });
  assertEquals(sniffImage(ascii("hello world")), undefined);
  assertEquals(sniffImage(new Uint8Array(0)), undefined);
});

Deno.test("sniff: AVIF by its ftyp brand; other HEIF files are not AVIF", async () => {
  const avif = await encodeRgb(new Uint8Array(8 * 8 * 3), 8, 8, "avif");
  assertEquals(sniffImage(avif), { format: "avif" });
  const heic = Uint8Array.from("\0\0\0\x18ftypheic\0\0\0\0mif1heic", (c) => c.charCodeAt(0));
  assertEquals(sniffImage(heic), { format: "heif" });
});

Deno.test("sniff: BMP size from its info header, top-down heights included", () => {
  const header = new Uint8Array(54);
  const view = new DataView(header.buffer);
  header.set(ascii("BM"));
  view.setInt32(18, 640, true);
  view.setInt32(22, -480, true);
  assertEquals(sniffImage(header), { format: "bmp", width: 640, height: 480 });
});
