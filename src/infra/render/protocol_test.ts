import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { transferableSymbol, valueSymbol } from "piscina";
import { bitmapsReply, fromWireImages, pngReply, wireBuffer, wireImages } from "./protocol.ts";

Deno.test("protocol: bytes cross threads as whole ArrayBuffers holding exactly those bytes", () => {
  const whole = Uint8Array.from([1, 2, 3]);
  assert.ok(wireBuffer(whole) === whole.buffer, "a view spanning its buffer sends that buffer");
  const view = new Uint8Array(Uint8Array.from([9, 1, 2, 3, 9]).buffer, 1, 3);
  const sent = wireBuffer(view);
  assert.ok(sent !== view.buffer);
  assertEquals([...new Uint8Array(sent)], [1, 2, 3]);
});

Deno.test("protocol: pictures are copied onto the wire, so the caller's bytes stay usable", () => {
  const photo = Uint8Array.from([5, 6, 7]);
  const { images, buffers } = wireImages({ f: photo });
  assertEquals(buffers.length, 1);
  assert.ok(images.f !== photo.buffer);
  structuredClone(images.f, { transfer: [images.f] }); // detaches the wire copy, as a transfer does
  assertEquals([...photo], [5, 6, 7]);
  assertEquals([...fromWireImages({ f: Uint8Array.from([1]).buffer }).f], [1]);
});

Deno.test("protocol: a PNG reply moves the PNG alone, a bitmaps reply all three formats", () => {
  const transferred = (reply: unknown) =>
    (reply as Record<symbol, ArrayBuffer[]>)[transferableSymbol].map((b) => b.byteLength);
  const png = Uint8Array.from([1, 2, 3]);
  const preview = pngReply(png);
  assertEquals(transferred(preview), [3]);
  const value = (preview as unknown as Record<symbol, Record<string, unknown>>)[valueSymbol];
  assertEquals(Object.keys(value).sort(), ["ok", "png"]);
  const all = bitmapsReply({ png, raw2: new Uint8Array(48000), raw4: new Uint8Array(96000) });
  assertEquals(transferred(all), [3, 48000, 96000]);
});
