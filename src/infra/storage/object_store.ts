/**
 * Object storage behind one interface: S3 (`s3.ts`) when configured, otherwise the embedded
 * on-disk store (`disk.ts`) whose signed URLs the service serves and verifies itself.
 */

/** A presigned browser upload: POST multipart to `url` with `fields` first, `file` last. */
export interface UploadTicket {
  url: string;
  fields: Record<string, string>;
  expiresAt: Date;
}

export interface ObjectInfo {
  size: number;
  contentType: string;
}

export interface ObjectStore {
  /** Which implementation, for the start-up banner. */
  readonly kind: "s3" | "disk";
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /**
   * Copies an object (bytes and content type) to another key, replacing what is there, without
   * its bytes passing through this process; throws when `from` is missing.
   */
  copy(from: string, to: string): Promise<void>;
  /** The object's bytes, or null when missing. */
  get(key: string): Promise<Uint8Array | null>;
  /** Size and content type, or null when missing. */
  head(key: string): Promise<ObjectInfo | null>;
  /** Deletes one object (nothing when it is missing). */
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix`. */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * A POST policy for one upload to `key`: content type within the declared top-level type,
   * size within `maxBytes`. The embedded store lets a policy store its object once; S3 cannot,
   * so confirming code must not trust the object to stay as it was (src/domains/files/uploads.ts).
   */
  presignUpload(
    key: string,
    options: { contentType: string; maxBytes: number; expiresInSeconds: number },
  ): Promise<UploadTicket>;
  /** A signed GET URL valid for `expiresInSeconds`. */
  signedGetUrl(key: string, expiresInSeconds: number): Promise<string>;
}
