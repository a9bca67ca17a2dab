/**
 * Upload tickets, for every kind of uploaded file (SPEC 4.5 custom pushes; CONTRACT.md raw-item
 * attachments and targetless image assets take the same ticket shape). A ticket is a presigned
 * POST to a staging key; confirm reads what is there once, sniffs it, and copies exactly those
 * bytes to a final key no ticket can write, in the transaction that marks the file confirmed.
 * Whatever happens to the staging key afterwards (S3 cannot make a presigned POST single use:
 * a replay within its 15 minutes overwrites it) never reaches a reader: every reader takes the
 * file's `object_key`, which is the final copy from then on (issue 16, docs/decisions.md).
 */
import type { Selectable } from "kysely";
import { AppError, badRequest, conflict } from "../../errors.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { confirmedKey, uploadKey } from "./keys.ts";
import type { Db, Trx } from "../../schema.ts";
import { checkImageStructure } from "../../infra/render/structure.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import { SNIFF_BYTES, sniffImageType } from "../../infra/storage/sniff.ts";
import * as repo from "./repository.ts";
import type { FilePurpose, FilesTable } from "./tables.ts";

type FileRow = Selectable<FilesTable>;

/** SPEC 8: presigned upload tickets live 15 minutes and allow images up to 10 MB. */
export const UPLOAD_TTL_SECONDS = 15 * 60;
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const IMAGE_TYPE = /^image\/[a-z0-9][a-z0-9.+-]*$/i;

/** The ticket as the API returns it (SPEC 4.5 upload ticket). */
export interface UploadTicketView {
  fileId: string;
  url: string;
  fields: Record<string, string>;
  expiresAt: string;
}

/** Who uploads what, and under which path segments (e.g. the device id) it is kept. */
export interface TicketRequest {
  userId: string;
  deviceId: string | null;
  purpose: FilePurpose;
  /** Key segments after the user id: `uploads/{userId}/{scope}/{fileId}`. */
  scope: string;
  contentType: string;
  sizeBytes?: number;
}

/** Where a confirmed copy of a file lives: under `files/`, a prefix tickets never sign. */
function finalKey(file: FileRow): string {
  return confirmedKey(file.user_id, file.object_key, file.id);
}

/** Issues a ticket: 400 for a type that is not `image/*`, 413 for a declared size over 10 MB. */
export async function issueUploadTicket(
  db: Db,
  store: ObjectStore,
  request: TicketRequest,
): Promise<UploadTicketView> {
  const contentType = request.contentType.trim().toLowerCase();
  if (!IMAGE_TYPE.test(contentType)) {
    throw badRequest(`Content type ${request.contentType} is not an image/* type`);
  }
  if (request.sizeBytes !== undefined && request.sizeBytes > MAX_UPLOAD_BYTES) {
    throw new AppError(
      "payload_too_large",
      `Image of ${request.sizeBytes} bytes is over the ${MAX_UPLOAD_BYTES} byte limit`,
    );
  }
  const fileId = uuidv7();
  const key = uploadKey(request.userId, request.scope, fileId);
  const ticket = await store.presignUpload(key, {
    contentType,
    maxBytes: MAX_UPLOAD_BYTES,
    expiresInSeconds: UPLOAD_TTL_SECONDS,
  });
  await repo.insertFile(db, {
    id: fileId,
    user_id: request.userId,
    device_id: request.deviceId,
    purpose: request.purpose,
    object_key: key,
    content_type: contentType,
    size_bytes: request.sizeBytes ?? null,
    status: "pending",
    expires_at: ticket.expiresAt,
  });
  return {
    fileId,
    url: ticket.url,
    fields: ticket.fields,
    expiresAt: ticket.expiresAt.toISOString(),
  };
}

/** The confirmed file as its readers see it. */
export interface ConfirmedFile {
  fileId: string;
  /** The final copy's key: what renders and downloads read. */
  key: string;
  size: number;
  contentType: string;
}

/** Accepted content types (sniffed) and how to name them in a refusal. */
export interface ConfirmOptions {
  types: ReadonlySet<string>;
  typeNames: string;
}

/**
 * Reads the staged upload once and checks it: 409 unless it is there, small, accepted and, by
 * its header and structure, decodable within the render's limits (issue 25: a file that can
 * never render is refused here, not left to fail in a job).
 */
async function readStaged(store: ObjectStore, file: FileRow, options: ConfirmOptions) {
  const info = await store.head(file.object_key);
  if (!info) throw conflict("Nothing has been uploaded for this file yet");
  if (info.size > MAX_UPLOAD_BYTES) throw conflict("Uploaded file is over the 10 MB limit");
  const bytes = await store.get(file.object_key);
  if (!bytes) throw conflict("Nothing has been uploaded for this file yet");
  // The bytes read are what counts: a replay between head and get may have changed them.
  if (bytes.length > MAX_UPLOAD_BYTES) throw conflict("Uploaded file is over the 10 MB limit");
  const sniffed = sniffImageType(bytes.subarray(0, SNIFF_BYTES));
  if (!sniffed) throw conflict("Uploaded file is not an image");
  if (!options.types.has(sniffed)) {
    throw conflict(`Image type ${sniffed} cannot be rendered; use ${options.typeNames}`);
  }
  const structure = checkImageStructure(bytes);
  if (!structure.ok) throw conflict(`Uploaded image cannot be rendered: ${structure.message}`);
  return { bytes, contentType: sniffed };
}

/**
 * Confirms a pending upload: 409 when it is already confirmed, missing, over 10 MB, not an
 * image or not an accepted type. The checked bytes are copied to the final key; `then` runs in
 * the transaction that marks the file confirmed (it creates whatever the upload was for). Of
 * concurrent confirms one commits; the others' copies are deleted. The staging object is
 * deleted after the commit.
 */
export function confirmUpload<T>(
  db: Db,
  store: ObjectStore,
  file: FileRow,
  options: ConfirmOptions,
  then: (trx: Trx, confirmed: ConfirmedFile) => Promise<T>,
): Promise<T> {
  return confirmUploads(db, store, [file], options, (trx, [confirmed]) => then(trx, confirmed));
}

/**
 * `confirmUpload` for several files at once (a targetless content's image assets): all of them
 * are confirmed in one transaction, or none. With no files, `then` simply runs in a transaction.
 */
export async function confirmUploads<T>(
  db: Db,
  store: ObjectStore,
  files: readonly FileRow[],
  options: ConfirmOptions,
  then: (trx: Trx, confirmed: ConfirmedFile[]) => Promise<T>,
): Promise<T> {
  if (files.some((file) => file.status !== "pending")) {
    throw conflict("Upload is already confirmed");
  }
  const confirmed: ConfirmedFile[] = [];
  let result: T;
  try {
    for (const file of files) {
      const { bytes, contentType } = await readStaged(store, file, options);
      // A fresh key per attempt: a losing concurrent confirm never overwrites the winner's copy.
      const copy = { fileId: file.id, key: finalKey(file), size: bytes.length, contentType };
      await store.put(copy.key, bytes, contentType);
      confirmed.push(copy);
    }
    result = await db.transaction().execute(async (trx) => {
      // Row locks in id order make concurrent confirms of the same files commit once, without
      // deadlocks.
      const order = [...confirmed].sort((a, b) => (a.fileId < b.fileId ? -1 : 1));
      for (const copy of order) {
        const locked = await repo.lockFile(trx, copy.fileId);
        if (locked?.status !== "pending") throw conflict("Upload is already confirmed");
        await repo.confirmFile(trx, copy.fileId, {
          objectKey: copy.key,
          sizeBytes: copy.size,
          contentType: copy.contentType,
        });
      }
      return await then(trx, confirmed);
    });
  } catch (error) {
    for (const copy of confirmed) await store.delete(copy.key).catch(() => {});
    throw error;
  }
  for (const file of files) await store.delete(file.object_key).catch(() => {});
  return result;
}

/** A fresh ticket for a file still pending (a replayed create, a client that lost its ticket). */
export async function reissueUploadTicket(
  store: ObjectStore,
  file: FileRow,
): Promise<UploadTicketView> {
  const ticket = await store.presignUpload(file.object_key, {
    contentType: file.content_type,
    maxBytes: MAX_UPLOAD_BYTES,
    expiresInSeconds: UPLOAD_TTL_SECONDS,
  });
  return {
    fileId: file.id,
    url: ticket.url,
    fields: ticket.fields,
    expiresAt: ticket.expiresAt.toISOString(),
  };
}
