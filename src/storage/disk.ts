/**
 * The embedded object store: objects under `DATA_DIR/objects`, with the same kind of signed
 * POST policy and signed GET URLs as S3. The service serves those URLs itself
 * (`storage/routes.ts`) and verifies expiry, signature, size and content type.
 */
import { dirname, join } from "node:path";
import type { ObjectInfo, ObjectStore, UploadTicket } from "./object_store.ts";
import { isSafeKey } from "./keys.ts";
import { downloadMessage, encodePolicy, sign } from "./signing.ts";

/** Path of the upload endpoint and prefix of download URLs, served by `storage/routes.ts`. */
export const UPLOAD_PATH = "/storage/upload";
export const OBJECTS_PATH = "/storage/objects";

export class DiskObjectStore implements ObjectStore {
  readonly kind = "disk" as const;

  /**
   * @param root directory holding `data/` (bytes) and `meta/` (content type) trees
   * @param secret HMAC key of policies and URLs
   * @param baseUrl origin the signed URLs point at (read per call: tests learn it after listen)
   */
  constructor(
    private readonly root: string,
    readonly secret: string,
    private readonly baseUrl: () => string,
  ) {}

  private paths(key: string) {
    if (!isSafeKey(key)) throw new Error(`Object key ${JSON.stringify(key)} is not allowed`);
    return { data: join(this.root, "data", key), meta: join(this.root, "meta", `${key}.json`) };
  }

  /** Writes atomically (temporary file, then rename) so readers never see half an object. */
  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const { data, meta } = this.paths(key);
    await Deno.mkdir(dirname(data), { recursive: true });
    await Deno.mkdir(dirname(meta), { recursive: true });
    const suffix = `.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(meta + suffix, JSON.stringify({ contentType }));
    await Deno.rename(meta + suffix, meta);
    await Deno.writeFile(data + suffix, bytes);
    await Deno.rename(data + suffix, data);
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return await Deno.readFile(this.paths(key).data);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const { data, meta } = this.paths(key);
    try {
      const stat = await Deno.stat(data);
      if (!stat.isFile) return null;
      const { contentType } = JSON.parse(await Deno.readTextFile(meta));
      return { size: stat.size, contentType };
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    for (const tree of ["data", "meta"]) {
      const base = join(this.root, tree);
      const dir = join(base, prefix.endsWith("/") ? prefix : dirname(prefix));
      for await (const path of walk(dir)) {
        const relative = path.slice(base.length + 1);
        const key = tree === "meta" ? relative.replace(/\.json$/, "") : relative;
        if (key.startsWith(prefix)) await Deno.remove(path).catch(() => {});
      }
    }
  }

  presignUpload(
    key: string,
    options: { contentType: string; maxBytes: number; expiresInSeconds: number },
  ): Promise<UploadTicket> {
    this.paths(key);
    const expires = Math.floor(Date.now() / 1000) + options.expiresInSeconds;
    const policy = encodePolicy({
      key,
      contentTypePrefix: options.contentType.split("/")[0] + "/",
      maxBytes: options.maxBytes,
      expires,
    });
    return Promise.resolve({
      url: `${this.baseUrl()}${UPLOAD_PATH}`,
      fields: {
        key,
        "Content-Type": options.contentType,
        policy,
        signature: sign(this.secret, policy),
      },
      expiresAt: new Date(expires * 1000),
    });
  }

  signedGetUrl(key: string, expiresInSeconds: number): Promise<string> {
    this.paths(key);
    const expires = Math.floor(Date.now() / 1000) + expiresInSeconds;
    const signature = sign(this.secret, downloadMessage(key, expires));
    return Promise.resolve(
      `${this.baseUrl()}${OBJECTS_PATH}/${
        encodeURIComponent(key)
      }?expires=${expires}&signature=${signature}`,
    );
  }
}

async function* walk(dir: string): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else yield path;
  }
}
