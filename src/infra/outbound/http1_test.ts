/**
 * The HTTP/1.1 reader against a connection that hands over one byte per read, as a hostile
 * server can (issue 25: no CPU work over what a user controls that is not linear in its size).
 */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { asyncWorkMs } from "../../../tests/helpers/cpu_time.ts";
import { get, type Http1Response } from "./http1.ts";

/** A connection whose reads return `response` one byte at a time, at once. */
function trickle(response: string): Deno.Conn {
  const bytes = new TextEncoder().encode(response);
  let at = 0;
  return {
    write: (data: Uint8Array) => Promise.resolve(data.length),
    read: (into: Uint8Array) => {
      if (at >= bytes.length) return Promise.resolve(null);
      into[0] = bytes[at++];
      return Promise.resolve(1);
    },
  } as unknown as Deno.Conn;
}

Deno.test("a 60 KiB response head sent a byte at a time is read in well under a second", async () => {
  const value = "a".repeat(60 * 1024);
  const conn = trickle(`HTTP/1.1 200 OK\r\nX-Long: ${value}\r\nContent-Length: 2\r\n\r\nok`);
  let reply: Http1Response | undefined;
  // Each search went over the whole head again: 6 s of CPU before.
  const ms = await asyncWorkMs(async () => {
    reply = await get(conn, new URL("http://e.test/"), { maxBytes: 1024, userAgent: "test" });
  });
  assert.ok(ms < 1000, `reading took ${ms.toFixed(0)} ms`);
  assertEquals(reply!.status, 200);
  assertEquals(reply!.headers.get("x-long"), value);
  assertEquals(new TextDecoder().decode(reply!.body), "ok");
});
