/**
 * A size limit on MQTT packets, checked on the fixed header before the body arrives. The MQTT
 * parser (mqtt-packet, inside aedes) buffers a whole packet before it hands it on, and a packet
 * may declare up to 256 MB: without this an unauthenticated client could make the broker hold
 * that much per connection by sending one CONNECT header and trickling bytes.
 */
import { Duplex } from "node:stream";
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
 * The socket as the broker reads it: the same bytes, but the connection is destroyed as soon as
 * a packet header declares more than `maxBodyBytes` (`onRefused` says so).
 */
export function guardPacketSize(
  socket: Socket,
  maxBodyBytes: number,
  onRefused: () => void = () => {},
): Duplex {
  const guard = new PacketSizeGuard(maxBodyBytes);
  const conn = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  socket.on("data", (chunk: Uint8Array) => {
    if (!guard.feed(chunk)) {
      onRefused();
      conn.destroy(new Error(`MQTT packet over ${maxBodyBytes} bytes`));
      return;
    }
    if (!conn.push(chunk)) socket.pause();
  });
  socket.on("end", () => conn.push(null));
  socket.on("error", (error) => conn.destroy(error));
  socket.on("close", () => conn.destroy());
  return conn;
}
