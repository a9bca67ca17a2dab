/**
 * An incremental multipart/form-data reader (RFC 7578) over a request body stream. It holds
 * one network chunk plus a delimiter's length at a time, so a caller can read the small fields
 * first, decide, and only then stream the file part (or stop reading at all): issue 16, the
 * embedded store must check a policy before it reads a byte of the file.
 */
import { AppError } from "../../errors.ts";

const CRLF = Uint8Array.from([13, 10]);
const HEADER_END = Uint8Array.from([13, 10, 13, 10]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One part's headers: its field name, filename and declared type. */
export interface PartHeaders {
  name: string;
  filename?: string;
  contentType?: string;
}

const malformed = (message: string) => new AppError("invalid_request", message);

/** The boundary of a `multipart/form-data` Content-Type (RFC 2046: 1-70 characters), or null. */
export function boundaryOf(contentType: string): string | null {
  if (!/^multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const match = contentType.match(/;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))\s*(;|$)/i);
  return match ? match[1] ?? match[2] : null;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  for (let i = haystack.indexOf(needle[0], from); i >= 0; i = haystack.indexOf(needle[0], i + 1)) {
    if (i + needle.length > haystack.length) return -1;
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** `form-data; name="x"; filename="y"` → its parameters (quoted or token values). */
function dispositionParams(value: string): Map<string, string> | null {
  const [kind, ...rest] = value.split(";");
  if (kind.trim().toLowerCase() !== "form-data") return null;
  const params = new Map<string, string>();
  const pattern = /;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (const m of (";" + rest.join(";")).matchAll(pattern)) {
    params.set(m[1].toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3].trim());
  }
  return params;
}

/**
 * Reads parts in order. `next()` returns the next part's headers (null after the closing
 * delimiter); the caller then reads that part to its end with `text()` or `chunks()` before
 * calling `next()` again. Every byte read before a part's body counts towards `headerBudget`.
 */
export class MultipartReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #delimiter: Uint8Array;
  // A virtual CRLF in front, so the first delimiter looks like every other one.
  #buffer: Uint8Array = CRLF.slice();
  #pos = 0;
  #done = false;
  #state: "preamble" | "body" | "delimiter" | "finished" = "preamble";
  /** Bytes taken from the request body so far. */
  consumed = 0;

  /** Bytes of the request body before the current read position. */
  get position(): number {
    return Math.max(0, this.consumed - (this.#buffer.length - this.#pos));
  }

  constructor(body: ReadableStream<Uint8Array>, boundary: string, private headerBudget: number) {
    this.#reader = body.getReader();
    this.#delimiter = encoder.encode(`\r\n--${boundary}`);
  }

  async #fill(): Promise<boolean> {
    if (this.#done) return false;
    // A client that goes away mid-upload is a bad request, not a server error.
    const { value, done } = await this.#reader.read().catch(() => {
      throw malformed("Upload was interrupted");
    });
    if (done) {
      this.#done = true;
      return false;
    }
    const rest = this.#buffer.subarray(this.#pos);
    const next = new Uint8Array(rest.length + value.length);
    next.set(rest);
    next.set(value, rest.length);
    this.#buffer = next;
    this.#pos = 0;
    this.consumed += value.length;
    return true;
  }

  #overBudget(): AppError {
    return malformed(`Form fields are over ${this.headerBudget} bytes`);
  }

  /** Waits for `pattern` outside a part body, within the header budget. */
  async #until(pattern: Uint8Array, what: string): Promise<number> {
    for (;;) {
      const at = indexOf(this.#buffer, pattern, this.#pos);
      if (at >= 0) return at;
      if (this.consumed > this.headerBudget) throw this.#overBudget();
      if (!(await this.#fill())) throw malformed(`Upload ended before ${what}`);
    }
  }

  /**
   * After a delimiter: true when it is the closing one (`--`; the epilogue is never read),
   * false when a part follows.
   */
  async #closing(): Promise<boolean> {
    while (this.#buffer.length - this.#pos < 2) {
      if (!(await this.#fill())) throw malformed("Upload ended before the form was complete");
    }
    const closing = this.#buffer[this.#pos] === 45 && this.#buffer[this.#pos + 1] === 45;
    if (closing) this.#state = "finished";
    return closing;
  }

  /** True when the form ends right after the part just read (no further part follows). */
  async ends(): Promise<boolean> {
    if (this.#state !== "delimiter") return this.#state === "finished";
    return await this.#closing();
  }

  /** The next part's headers, or null when the form is complete. */
  async next(): Promise<PartHeaders | null> {
    if (this.#state === "body") throw new Error("The current part was not read to its end");
    if (this.#state === "finished") return null;
    if (this.#state === "preamble") {
      this.#pos = (await this.#until(this.#delimiter, "the first part")) + this.#delimiter.length;
      this.#state = "delimiter";
    }
    if (await this.#closing()) return null;
    const end = await this.#until(HEADER_END, "a part's headers ended");
    if (this.consumed > this.headerBudget) throw this.#overBudget();
    // After the delimiter: optional whitespace, CRLF, then the header lines.
    const block = decoder.decode(this.#buffer.subarray(this.#pos, end));
    this.#pos = end + HEADER_END.length;
    const lines = block.replace(/^[ \t]*\r\n/, "").split("\r\n");
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(":");
      if (colon <= 0) throw malformed("A form part has a malformed header");
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const params = dispositionParams(headers.get("content-disposition") ?? "");
    const name = params?.get("name");
    if (!params || name === undefined) throw malformed("A form part has no form-data name");
    this.#state = "body";
    return { name, filename: params.get("filename"), contentType: headers.get("content-type") };
  }

  /** The current part's body as chunks, ending at the next delimiter. */
  async *chunks(): AsyncGenerator<Uint8Array> {
    if (this.#state !== "body") return;
    const keep = this.#delimiter.length - 1;
    for (;;) {
      const at = indexOf(this.#buffer, this.#delimiter, this.#pos);
      if (at >= 0) {
        const chunk = this.#buffer.subarray(this.#pos, at);
        this.#pos = at + this.#delimiter.length;
        this.#state = "delimiter";
        if (chunk.length) yield chunk;
        return;
      }
      // Everything but a possible delimiter prefix at the end is body.
      const safe = Math.max(this.#pos, this.#buffer.length - keep);
      if (safe > this.#pos) {
        const chunk = this.#buffer.subarray(this.#pos, safe);
        this.#pos = safe;
        yield chunk;
      }
      if (!(await this.#fill())) throw malformed("Upload ended before the form was complete");
    }
  }

  /** The current part's body as UTF-8 text, at most `limit` bytes. */
  async text(name: string, limit: number): Promise<string> {
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of this.chunks()) {
      size += chunk.length;
      if (size > limit) throw malformed(`Form field ${name} is over ${limit} bytes`);
      parts.push(chunk.slice());
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const part of parts) {
      all.set(part, at);
      at += part.length;
    }
    return decoder.decode(all);
  }

  /** Stops reading: the rest of the body is discarded, never buffered. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}
