import { assert } from "../../../tests/helpers/assert.ts";
import { PacketSizeGuard } from "./packet_guard.ts";

/** A packet: type byte, MQTT variable-length remaining length, body. */
function packet(bodyLength: number): Uint8Array {
  const length: number[] = [];
  let n = bodyLength;
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    length.push(byte);
  } while (n > 0);
  return new Uint8Array([0x30, ...length, ...new Uint8Array(bodyLength).fill(7)]);
}

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

Deno.test("packet guard: follows packets across and within chunks", () => {
  const guard = new PacketSizeGuard(1000);
  const stream = concat(packet(0), packet(5), packet(200), packet(1000), packet(129));
  // Byte by byte, then in odd slices: boundaries never confuse it.
  for (const b of stream) assert.ok(guard.feed(new Uint8Array([b])));
  for (let i = 0; i < stream.length; i += 37) assert.ok(guard.feed(stream.slice(i, i + 37)));
});

Deno.test("packet guard: a header declaring more than the limit is refused at once", () => {
  const guard = new PacketSizeGuard(1000);
  assert.ok(guard.feed(packet(10)));
  // Only the header of a 1001-byte packet: refused before any of its body.
  assert.ok(!guard.feed(packet(1001).slice(0, 3)));
  // The largest MQTT length (256 MB), header only.
  assert.ok(!new PacketSizeGuard(1000).feed(new Uint8Array([0x10, 0xff, 0xff, 0xff, 0x7f])));
});

Deno.test("packet guard: a remaining length over four bytes is malformed", () => {
  assert.ok(!new PacketSizeGuard(1 << 30).feed(new Uint8Array([0x10, 0x80, 0x80, 0x80, 0x80])));
});
