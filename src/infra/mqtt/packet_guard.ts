/**
 * A size limit on MQTT packets, checked on the fixed header before the body arrives. The MQTT
 * parser (mqtt-packet, inside aedes) buffers a whole packet before it hands it on, and a packet
 * may declare up to 256 MB: without this an unauthenticated client could make the broker hold
 * that much per connection by sending one CONNECT header and trickling bytes.
 */
import type { Socket } from "node:net";

/** Follows packet boundaries in a byte stream; refuses a packet whose body is over the limit. */
export class PacketSizeGuard {
  private state: "header" | "length" | "body" = "header";
  private length = 0;
  private multiplier = 1;
  private lengthBytes = 0;
  private remaining = 0;

  constructor(private readonly maxBodyBytes: number) {}

  /** False once a packet declares a body over the limit or a malformed remaining length. */
  feed(chunk: Uint8Array): boolean {
    let i = 0;
    while (i < chunk.length) {
      if (this.state === "header") {
        i++;
        this.state = "length";
        this.length = 0;
        this.multiplier = 1;
        this.lengthBytes = 0;
      } else if (this.state === "length") {
        const byte = chunk[i++];
        this.length += (byte & 0x7f) * this.multiplier;
        this.lengthBytes++;
        if (byte & 0x80) {
          // MQTT 3.1.1 2.2.3: the remaining length takes at most four bytes.
          if (this.lengthBytes === 4) return false;
          this.multiplier *= 128;
        } else {
          if (this.length > this.maxBodyBytes) return false;
          this.remaining = this.length;
          this.state = this.remaining > 0 ? "body" : "header";
        }
      } else {
        const take = Math.min(this.remaining, chunk.length - i);
        i += take;
        this.remaining -= take;
        if (this.remaining === 0) this.state = "header";
      }
    }
    return true;
  }
}

/**
 * The socket itself, as the broker reads it: the same bytes, but the connection is destroyed as
 * soon as a packet header declares more than `maxBodyBytes` (`onRefused` says so). The check sits
 * on the socket's own `read` (aedes reads with `conn.read()` on `readable`), so no second stream
 * stands between the broker and the socket: a stream per connection, and its writes, each one
 * more socket write, were a sixth of the connect burst's long loop turns (issue 40).
 */
export function guardPacketSize(
  socket: Socket,
  maxBodyBytes: number,
  onRefused: () => void = () => {},
): Socket {
  const guard = new PacketSizeGuard(maxBodyBytes);
  const read = socket.read;
  let refused = false;
  // Every byte the socket hands out passes here once, whoever reads it (read(n), read(null), or
  // the stream's own flowing mode), before any parser sees it.
  socket.read = function (this: Socket, size?: number) {
    if (refused) return null;
    const chunk = read.call(this, size) as Uint8Array | string | null;
    if (chunk !== null && typeof chunk !== "string" && !guard.feed(chunk)) {
      refused = true;
      onRefused();
      socket.destroy(new Error(`MQTT packet over ${maxBodyBytes} bytes`));
      return null;
    }
    return chunk;
  };
  return socket;
}
