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
    return {
      data: join(this.root, "data", key),
      meta: join(this.root, "meta", `${key}.json`),
      claim: join(this.root, "claims", key),
    };
  }

  /**
   * Starts the one upload a signed policy allows for `key` (issue 16: a ticket is single use).
   * The claim is an exclusive create, so of concurrent uploads with one ticket exactly one gets
   * a writer; the others get null. A failed upload gives the claim back; a committed one keeps
   * it for good, so the ticket cannot replace the object it stored.
   */
  async beginUpload(key: string, policyExpires: number): Promise<DiskUpload | null> {
    const { data, meta, claim } = this.paths(key);
    await Deno.mkdir(dirname(claim), { recursive: true });
    try {
      await Deno.writeTextFile(claim, String(policyExpires), { createNew: true });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) return null;
      throw error;
    }
    try {
      await Deno.mkdir(dirname(data), { recursive: true });
      await Deno.mkdir(dirname(meta), { recursive: true });
      const temp = `${data}.${crypto.randomUUID()}.upload`;
      const file = await Deno.open(temp, { write: true, createNew: true });
      return new DiskUpload(file, temp, data, meta, claim);
    } catch (error) {
      await Deno.remove(claim).catch(() => {});
      throw error;
    }
  }

  /** The object's size, content type and a stream of its bytes, or null when missing. */
  async open(
    key: string,
  ): Promise<(ObjectInfo & { body: ReadableStream<Uint8Array<ArrayBuffer>> }) | null> {
    const { data, meta } = this.paths(key);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(data);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
    try {
      // The size of the file being streamed, not of whatever the path names a moment later.
      const stat = await file.stat();
      const { contentType } = JSON.parse(await Deno.readTextFile(meta));
      if (!stat.isFile) throw new Deno.errors.NotFound();
      return { size: stat.size, contentType, body: file.readable };
    } catch (error) {
      file.close();
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
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

  /**
   * A hard link of the object's two files: nothing is read or written again (a playlist's
   * drawing stored for a thousand displays is a link each), and as every write here replaces a
   * file by renaming a new one over it, deleting or replacing either key leaves the other whole.
   */
  async copy(from: string, to: string): Promise<void> {
    const source = this.paths(from), target = this.paths(to);
    try {
      await linkOver(source.meta, target.meta);
      await linkOver(source.data, target.data);
    } catch (error) {
      // A file system without hard links: the bytes, then.
      if (
        !(error instanceof Deno.errors.NotSupported ||
          error instanceof Deno.errors.PermissionDenied)
      ) {
        throw error;
      }
      const info = await this.head(from);
      const bytes = await this.get(from);
      if (!info || !bytes) throw new Deno.errors.NotFound(`Object ${from} is missing`);
      await this.put(to, bytes, info.contentType);
    }
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

  async delete(key: string): Promise<void> {
    const { data, meta } = this.paths(key);
    for (const path of [data, meta]) {
      await Deno.remove(path).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    }
  }

  /**
   * Deletes the objects under `prefix`, and the upload claims whose policy has expired (a live
   * claim stays, so an unexpired ticket cannot store its object again after a delete).
   */
  async deletePrefix(prefix: string): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    for (const tree of ["data", "meta", "claims"]) {
      const base = join(this.root, tree);
      const dir = join(base, prefix.endsWith("/") ? prefix : dirname(prefix));
      for await (const path of walk(dir)) {
        const relative = path.slice(base.length + 1);
        const key = tree === "meta" ? relative.replace(/\.json$/, "") : relative;
        if (!key.startsWith(prefix)) continue;
        if (tree === "claims") {
          const expires = Number(await Deno.readTextFile(path).catch(() => "0"));
          if (expires >= now) continue;
        }
        await Deno.remove(path).catch(() => {});
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
    const expires = Math.floor(Date.now() / 1000) + expiresInSeconds;
    // A signed URL is a pure function of key and expiry: within one second, a key polled again
    // (a display's `GET .../push`) reuses it instead of checking, signing and formatting it
    // again (issues 13 and 40).
    if (this.#signed.expires !== expires) this.#signed = { expires, byKey: new Map() };
    let url = this.#signed.byKey.get(key);
    if (url === undefined) {
      if (!isSafeKey(key)) throw new Error(`Object key ${JSON.stringify(key)} is not allowed`);
      const signature = sign(this.secret, downloadMessage(key, expires));
      url = `${this.baseUrl()}${OBJECTS_PATH}/${
        encodeURIComponent(key)
      }?expires=${expires}&signature=${signature}`;
      this.#signed.byKey.set(key, url);
    }
    return Promise.resolve(url);
  }

  /** URLs signed this second, by key (`signedGetUrl`). */
  #signed = { expires: 0, byKey: new Map<string, string>() };
}

/** One upload in progress: bytes go to a temporary file, renamed into place on commit. */
export class DiskUpload {
  #open = true;

  constructor(
    private readonly file: Deno.FsFile,
    private readonly temp: string,
    private readonly data: string,
    private readonly meta: string,
    private readonly claim: string,
  ) {}

  /** Appends bytes (all of them: `FsFile.write` may write fewer). */
  async write(chunk: Uint8Array): Promise<void> {
    for (let at = 0; at < chunk.length;) at += await this.file.write(chunk.subarray(at));
  }

  #close() {
    if (this.#open) this.file.close();
    this.#open = false;
  }

  /** Stores the object with its (sniffed) content type; readers never see half of it. */
  async commit(contentType: string): Promise<void> {
    this.#close();
    const suffix = `.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(this.meta + suffix, JSON.stringify({ contentType }));
    await Deno.rename(this.meta + suffix, this.meta);
    await Deno.rename(this.temp, this.data);
  }

  /** Discards the bytes and gives the claim back: nothing was stored, the ticket stays usable. */
  async abort(): Promise<void> {
    this.#close();
    await Deno.remove(this.temp).catch(() => {});
    await Deno.remove(this.claim).catch(() => {});
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

/**
 * `to` as a hard link of `from`, replacing it atomically when it exists; its directory made on
 * the way. Throws NotFound when `from` is missing.
 */
async function linkOver(from: string, to: string): Promise<void> {
  try {
    await Deno.link(from, to);
    return;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.AlreadyExists)) {
      throw error;
    }
    if (error instanceof Deno.errors.NotFound) {
      // Its directory is new (or `from` is missing: the second link says so).
      await Deno.mkdir(dirname(to), { recursive: true });
      try {
        await Deno.link(from, to);
        return;
      } catch (again) {
        if (!(again instanceof Deno.errors.AlreadyExists)) throw again;
      }
    }
  }
  const temp = `${to}.${crypto.randomUUID()}.tmp`;
  await Deno.link(from, temp);
  await Deno.rename(temp, to);
}
