/** Request body reading with a hard size limit (SPEC: JSON bodies over 1 MiB get 413). */
import { AppError } from "../errors.ts";

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

/** Reads and parses a JSON body; an empty body is `{}`; bad JSON is 400. */
export async function readJson(req: Request, limit = JSON_BODY_LIMIT): Promise<unknown> {
  const bytes = await readLimited(req, limit);
  if (bytes.byteLength === 0) return {};
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new AppError("invalid_request", "Request body is not valid JSON");
  }
}
