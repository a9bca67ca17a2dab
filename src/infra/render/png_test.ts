import { decode } from "fast-png";
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { encodePng1Bit } from "./png.ts";

Deno.test("png: 1-bit grey, same bits as the 1 bpp packing", () => {
  const packed = Uint8Array.from([0x81, 0xff, 0x00, 0x0f]);
  const png = encodePng1Bit(packed, 16, 2);
  const view = new DataView(png.buffer, png.byteOffset);
  assertEquals([view.getUint32(16), view.getUint32(20), png[24], png[25]], [16, 2, 1, 0]);
  const decoded = decode(png);
  assertEquals([decoded.width, decoded.height, decoded.depth, decoded.channels], [16, 2, 1, 1]);
  assertEquals([...decoded.data], [...packed]);
});
