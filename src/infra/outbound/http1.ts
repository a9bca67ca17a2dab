/**
 * A minimal HTTP/1.1 GET over a connection the caller opened (to an address it checked), so the
 * link fetcher never lets a library resolve the name again (no DNS rebinding between check and
 * connect). Reads at most `maxBytes` of body, chunked or not; gzip/deflate bodies are inflated
 * under the same cap.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MAX_HEAD = 64 * 1024;

/** The body is over the cap (declared or streamed). */
export class TooLarge extends Error {}
/** The server spoke something that is not HTTP/1.x. */
export class BadResponse extends Error {}

export interface Http1Response {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

/** Buffered reads from a connection (a growing buffer: no copy per chunk). */
class Reader {
  private data = new Uint8Array(32 * 1024);
  private start = 0;
  private end = 0;
  private done = false;
  constructor(private readonly conn: Deno.Conn) {}

  private get buffer(): Uint8Array {
    return this.data.subarray(this.start, this.end);
  }

  private async fill(): Promise<boolean> {
    if (this.done) return false;
    if (this.end === this.data.length) {
      const kept = this.buffer;
      const next = new Uint8Array(Math.max(this.data.length, kept.length * 2));
      next.set(kept);
      this.data = next;
      this.start = 0;
      this.end = kept.length;
    }
    const n = await this.conn.read(this.data.subarray(this.end));
    if (n === null) {
      this.done = true;
      return false;
    }
    this.end += n;
    return true;
  }

  /** Bytes up to and including `delimiter`; `limit` bounds the search. */
  async until(delimiter: string, limit: number): Promise<Uint8Array> {
    const needle = encoder.encode(delimiter);
    // Each read searches only what it added: searching the whole buffer again, a server sending
    // its head a byte at a time cost a rescan per byte (quadratic, 6 s of CPU for 60 KiB).
    let from = 0;
    for (;;) {
      const at = indexOf(this.buffer, needle, from);
      if (at >= 0) return this.take(at + needle.length);
      from = Math.max(0, this.end - this.start - needle.length + 1);
      if (this.end - this.start > limit) throw new BadResponse("Response header is too long");
      if (!(await this.fill())) throw new BadResponse("Connection closed early");
    }
  }

  /** Exactly `n` bytes. */
  async exactly(n: number): Promise<Uint8Array> {
    while (this.end - this.start < n) {
      if (!(await this.fill())) throw new BadResponse("Connection closed early");
    }
    return this.take(n);
  }

  /** Everything until the server closes, at most `limit` bytes. */
  async rest(limit: number): Promise<Uint8Array> {
    while (await this.fill()) {
      if (this.end - this.start > limit) throw new TooLarge();
    }
    if (this.end - this.start > limit) throw new TooLarge();
    return this.take(this.end - this.start);
  }

  private take(n: number): Uint8Array {
    const out = this.data.slice(this.start, this.start + n);
    this.start += n;
    return out;
  }
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function readChunked(reader: Reader, maxBytes: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const line = decoder.decode(await reader.until("\r\n", 1024)).trim();
    const size = parseInt(line.split(";")[0], 16);
    if (!Number.isInteger(size) || size < 0) throw new BadResponse("Bad chunk size");
    if (size === 0) return concat(parts);
    total += size;
    if (total > maxBytes) throw new TooLarge();
    parts.push(await reader.exactly(size));
    await reader.exactly(2);
  }
}

/** Inflates gzip/deflate, stopping as soon as the output passes the cap. */
async function inflate(body: Uint8Array, format: "gzip" | "deflate", maxBytes: number) {
  const stream = new Blob([body.slice()]).stream().pipeThrough(new DecompressionStream(format));
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const part of stream) {
    total += part.length;
    if (total > maxBytes) throw new TooLarge();
    parts.push(part);
  }
  return concat(parts);
}

/** Sends `GET url` on `conn` and reads the response (the caller closes the connection). */
export function get(
  conn: Deno.Conn,
  url: URL,
  options: { maxBytes: number; userAgent: string },
): Promise<Http1Response> {
  return request(conn, url, {
    ...options,
    method: "GET",
    headers: {
      Accept:
        "text/html,application/xhtml+xml,text/plain;q=0.9,image/png,image/jpeg;q=0.8,*/*;q=0.1",
      "Accept-Encoding": "gzip, deflate",
    },
  });
}

/**
 * Sends one request on `conn` and reads the response (the caller closes the connection). With
 * `skipBody` only the status line and headers are read (a webhook's receiver answers with a
 * status; its body is never buffered).
 */
export async function request(
  conn: Deno.Conn,
  url: URL,
  options: {
    method: "GET" | "POST";
    headers?: Record<string, string>;
    body?: Uint8Array;
    maxBytes: number;
    userAgent: string;
    skipBody?: boolean;
  },
): Promise<Http1Response> {
  const target = (url.pathname || "/") + url.search;
  const lines = [
    `${options.method} ${target} HTTP/1.1`,
    `Host: ${url.host}`,
    `User-Agent: ${options.userAgent}`,
    ...Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    ...(options.body ? [`Content-Length: ${options.body.length}`] : []),
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  const head = encoder.encode(lines);
  await conn.write(options.body ? concat([head, options.body]) : head);
  return await readResponse(conn, options);
}

async function readResponse(
  conn: Deno.Conn,
  options: { maxBytes: number; skipBody?: boolean },
): Promise<Http1Response> {
  const reader = new Reader(conn);
  const head = decoder.decode(await reader.until("\r\n\r\n", MAX_HEAD)).split("\r\n");
  const statusLine = head[0].match(/^HTTP\/1\.[01] (\d{3})/);
  if (!statusLine) throw new BadResponse("Not an HTTP/1.x response");
  const headers = new Headers();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    try {
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    } catch {
      throw new BadResponse("Malformed response header");
    }
  }
  const status = Number(statusLine[1]);
  // Redirects and errors are judged by status and headers alone: their bodies are not read.
  if (status >= 300 || options.skipBody) return { status, headers, body: new Uint8Array(0) };
  let body: Uint8Array;
  const length = headers.get("content-length");
  if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
    body = await readChunked(reader, options.maxBytes);
  } else if (length !== null) {
    const n = Number(length);
    if (!Number.isInteger(n) || n < 0) throw new BadResponse("Bad Content-Length");
    if (n > options.maxBytes) throw new TooLarge();
    body = await reader.exactly(n);
  } else {
    body = await reader.rest(options.maxBytes);
  }
  const encoding = (headers.get("content-encoding") ?? "").toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") {
    body = await inflate(body, "gzip", options.maxBytes);
  } else if (encoding === "deflate") body = await inflate(body, "deflate", options.maxBytes);
  else if (encoding && encoding !== "identity") {
    throw new BadResponse(`Unsupported Content-Encoding ${encoding}`);
  }
  return { status, headers, body };
}
