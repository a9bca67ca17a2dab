/**
 * Hand-built multipart/form-data bodies, so tests control what a browser's FormData would not
 * let them: part order, duplicate fields, broken framing, streamed file parts.
 */
import { fetchChecked } from "./openapi.ts";

const encoder = new TextEncoder();

/** One form part: a text field, or bytes with a filename and type. */
export interface Part {
  name: string;
  value: string | Uint8Array;
  filename?: string;
  type?: string;
}

/** The ticket's fields as parts, in order, then `file` with `bytes` (the SPEC 4.5 layout). */
export function ticketParts(fields: Record<string, string>, bytes: Uint8Array): Part[] {
  return [
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
    { name: "file", value: bytes, filename: "upload", type: "image/png" },
  ];
}

function partHead(boundary: string, part: Part): string {
  const filename = part.filename === undefined ? "" : `; filename="${part.filename}"`;
  const type = part.type ? `\r\nContent-Type: ${part.type}` : "";
  return `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}${type}\r\n\r\n`;
}

/** The body bytes; `close: false` leaves out the closing delimiter (a truncated upload). */
export function formBody(
  parts: Part[],
  options: { boundary?: string; close?: boolean } = {},
): { body: Uint8Array<ArrayBuffer>; contentType: string } {
  const boundary = options.boundary ?? "dds-test-boundary-7MA4YWxk";
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    chunks.push(encoder.encode(partHead(boundary, part)));
    chunks.push(typeof part.value === "string" ? encoder.encode(part.value) : part.value);
    chunks.push(encoder.encode("\r\n"));
  }
  if (options.close !== false) chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POSTs a hand-built form; the status and the error message, if any. */
export async function postForm(
  url: string,
  form: { body: BodyInit; contentType: string },
): Promise<{ status: number; error?: string }> {
  const res = await fetchChecked(url, {
    method: "POST",
    headers: { "content-type": form.contentType },
    body: form.body,
  });
  const text = await res.text();
  return { status: res.status, error: text ? JSON.parse(text).error : undefined };
}

/**
 * A form whose file part is `size` bytes streamed in 64 KiB pieces from one shared buffer (so
 * forty of them cost the test nothing); `pulled` counts the file bytes the server asked for.
 */
export function streamedForm(fields: Record<string, string>, file: Uint8Array) {
  const boundary = "dds-stream-boundary";
  const head = encoder.encode(
    Object.entries(fields).map(([name, value]) =>
      partHead(boundary, { name, value }) + value + "\r\n"
    )
      .join("") + partHead(boundary, { name: "file", value: "", filename: "f", type: "image/png" }),
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const stats = { pulled: 0 };
  let at = -1;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at < 0) {
        controller.enqueue(head);
        at = 0;
      } else if (at >= file.length) {
        controller.enqueue(tail);
        controller.close();
      } else {
        const chunk = file.subarray(at, at + 65536);
        at += chunk.length;
        stats.pulled += chunk.length;
        controller.enqueue(chunk);
      }
    },
  });
  return {
    stats,
    form: { body, contentType: `multipart/form-data; boundary=${boundary}` },
    length: head.length + file.length + tail.length,
  };
}

/**
 * Sends a request over a plain TCP connection, with any Content-Length (fetch insists on the
 * true one), and returns the response's status (0 when none came within 5 s); the body may stop
 * short of what was declared.
 */
export async function rawPost(
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
): Promise<number> {
  const { hostname, port, pathname } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const head = [`POST ${pathname} HTTP/1.1`, `Host: ${hostname}:${port}`, "Connection: close"]
      .concat(Object.entries(headers).map(([k, v]) => `${k}: ${v}`)).join("\r\n") + "\r\n\r\n";
    await conn.write(encoder.encode(head));
    await conn.write(body).catch(() => 0);
    const buffer = new Uint8Array(1024);
    // A server still waiting for the declared bytes never answers: report 0 after 5 s.
    const timer = setTimeout(() => conn.close(), 5000);
    const n = await conn.read(buffer).catch(() => null);
    clearTimeout(timer);
    const line = new TextDecoder().decode(buffer.subarray(0, n ?? 0)).split("\r\n")[0];
    return Number(line.split(" ")[1]);
  } finally {
    try {
      conn.close();
    } catch { /* closed by the timer */ }
  }
}
