/**
 * Custom pushes (SPEC 4.5): an upload ticket for one image, then a confirm that verifies the
 * uploaded object and creates the push in PREPARE with its render job, in one transaction.
 */
import { AppError, badRequest, conflict, notFound } from "../errors.ts";
import { uuidv7 } from "../lib/ids.ts";
import * as files from "../files/repository.ts";
import { RENDERABLE_TYPES, sniffImageType } from "./image_sniff.ts";
import { CUSTOM_IMAGE_TEMPLATE, type PushesService } from "./service.ts";

/** SPEC 8: presigned upload tickets live 15 minutes and allow images up to 10 MB. */
export const UPLOAD_TTL_SECONDS = 15 * 60;
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

const IMAGE_TYPE = /^image\/[a-z0-9][a-z0-9.+-]*$/i;

/** `POST .../custom-push/upload`: 400 for a non-image type, 413 for a declared size over 10 MB. */
export async function createUploadTicket(
  pushes: PushesService,
  userId: string,
  deviceId: string,
  input: { contentType: string; sizeBytes?: number },
) {
  const device = await pushes.devices.owned(userId, deviceId);
  const contentType = input.contentType.trim().toLowerCase();
  if (!IMAGE_TYPE.test(contentType)) {
    throw badRequest(`Content type ${input.contentType} is not an image/* type`);
  }
  if (input.sizeBytes !== undefined && input.sizeBytes > MAX_IMAGE_BYTES) {
    throw new AppError(
      "payload_too_large",
      `Image of ${input.sizeBytes} bytes is over the ${MAX_IMAGE_BYTES} byte limit`,
    );
  }
  const fileId = uuidv7();
  const key = `uploads/${userId}/${device.id}/${fileId}`;
  const ticket = await pushes.store.presignUpload(key, {
    contentType,
    maxBytes: MAX_IMAGE_BYTES,
    expiresInSeconds: UPLOAD_TTL_SECONDS,
  });
  await files.insertFile(pushes.db, {
    id: fileId,
    user_id: userId,
    device_id: device.id,
    purpose: "custom_push_source",
    object_key: key,
    content_type: contentType,
    size_bytes: input.sizeBytes ?? null,
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

/**
 * `POST .../custom-push/confirm`: 404 for a file that is not this device's upload by the caller;
 * 409 when it is not confirmable (already confirmed, not uploaded, not an image, over 10 MB).
 */
export async function confirmUpload(
  pushes: PushesService,
  userId: string,
  deviceId: string,
  input: { fileId: string; title?: string },
) {
  await pushes.devices.owned(userId, deviceId);
  const file = await files.findFile(pushes.db, input.fileId);
  if (
    !file || file.purpose !== "custom_push_source" || file.device_id !== deviceId ||
    file.user_id !== userId
  ) throw notFound("Upload not found");
  if (file.status !== "pending") throw conflict("Upload is already confirmed");
  const info = await pushes.store.head(file.object_key);
  if (!info) throw conflict("Nothing has been uploaded for this file yet");
  if (info.size > MAX_IMAGE_BYTES) throw conflict("Uploaded file is over the 10 MB limit");
  const bytes = await pushes.store.get(file.object_key);
  const sniffed = bytes && sniffImageType(bytes.subarray(0, 16));
  if (!sniffed) throw conflict("Uploaded file is not an image");
  if (!RENDERABLE_TYPES.has(sniffed)) {
    throw conflict(`Image type ${sniffed} cannot be rendered; use PNG, JPEG or BMP`);
  }
  const push = await pushes.db.transaction().execute(async (trx) => {
    // The row lock makes two concurrent confirms of one upload produce one push.
    const locked = await files.lockFile(trx, file.id);
    if (locked?.status !== "pending") throw conflict("Upload is already confirmed");
    await files.confirmFile(trx, file.id, info.size, sniffed);
    return await pushes.create({
      userId,
      deviceId,
      title: input.title ?? "",
      template: CUSTOM_IMAGE_TEMPLATE,
      params: { fileId: file.id },
      sourceKey: file.object_key,
    }, trx);
  });
  return { pushId: push.id };
}
