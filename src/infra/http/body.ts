/**
 * Request body reading, shared by REST, `/trpc` and raw routes: a hard size limit (413 over it,
 * declared or not) and the one JSON rule (an empty body is `{}`; any other body must be sent as
 * JSON and be valid JSON, else 400).
 */
import { AppError } from "../../errors.ts";

/** SPEC: JSON bodies over 1 MiB get 413. */
export const JSON_BODY_LIMIT = 1024 * 1024;

/** Reads a body up to `limit` bytes; 413 as soon as it is exceeded, declared or not. */
export async function readLimited(req: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () =>
    new AppError("payload_too_large", `Request body is over the ${limit} byte limit`);
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge();
  if (!req.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Whether a Content-Type header names JSON (`application/json` or a `+json` type). */
export function isJsonType(contentType: string): boolean {
  return /^application\/json\b/i.test(contentType) || /\+json\b/i.test(contentType);
}

/**
 * A JSON body as bytes under `limit`: an empty body is `{}` so that body-less POSTs (`/portal`,
 * `/unbind`) need no Content-Type; any other body must be declared JSON (400).
 */
export async function readJsonBytes(
  req: Request,
  limit = JSON_BODY_LIMIT,
): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = await readLimited(req, limit);
  if (bytes.byteLength === 0) return new TextEncoder().encode("{}");
  if (!isJsonType(req.headers.get("content-type") ?? "")) {
    throw new AppError("invalid_request", "Content-Type must be application/json");
  }
  return bytes;
}

/** A parsed JSON body under the rules of `readJsonBytes`; invalid JSON is 400. */
export async function readJson(req: Request, limit = JSON_BODY_LIMIT): Promise<unknown> {
  const bytes = await readJsonBytes(req, limit);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new AppError("invalid_request", "Request body is not valid JSON");
  }
}
