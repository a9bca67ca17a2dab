/**
 * Custom pushes (SPEC 4.5): an upload ticket for one image, then a confirm that verifies the
 * uploaded object and creates the push in PREPARE with its render job, in one transaction. The
 * ticket mechanism itself is the files module's (src/files/uploads.ts).
 */
import * as access from "../access/mod.ts";
import * as files from "../files/repository.ts";
import { confirmUpload as confirmFileUpload, issueUploadTicket } from "../files/uploads.ts";
import {
  type DitherKernel,
  type ImageMode,
  RENDERABLE_NAMES,
  RENDERABLE_TYPES,
} from "../render/types.ts";
import { CUSTOM_IMAGE_TEMPLATE, type PushesService } from "./service.ts";

/** `POST .../custom-push/upload`: 400 for a non-image type, 413 for a declared size over 10 MB. */
export async function createCustomUpload(
  pushes: PushesService,
  userId: string,
  deviceId: string,
  input: { contentType: string; sizeBytes?: number },
) {
  const device = await pushes.devices.owned(userId, deviceId);
  return await issueUploadTicket(pushes.db, pushes.store, {
    userId,
    deviceId: device.id,
    purpose: "custom_push_source",
    scope: device.id,
    contentType: input.contentType,
    sizeBytes: input.sizeBytes,
  });
}

/**
 * `POST .../custom-push/confirm`: 404 for a file that is not this device's upload by the caller;
 * 409 when it is not confirmable (already confirmed, not uploaded, not an image the render pool
 * decodes, over 10 MB). The push renders the confirmed copy, never the ticket's staging object.
 */
export async function confirmCustomUpload(
  pushes: PushesService,
  userId: string,
  deviceId: string,
  input: { fileId: string; title?: string; dither?: DitherKernel; mode?: ImageMode },
) {
  await pushes.devices.owned(userId, deviceId);
  const file = access.owned("upload", await files.findFile(pushes.db, input.fileId), userId);
  if (file.purpose !== "custom_push_source" || file.device_id !== deviceId) {
    throw access.missing("upload");
  }
  const push = await confirmFileUpload(
    pushes.db,
    pushes.store,
    file,
    { types: RENDERABLE_TYPES, typeNames: RENDERABLE_NAMES },
    (trx, confirmed) =>
      pushes.create({
        userId,
        deviceId,
        title: input.title ?? "",
        template: CUSTOM_IMAGE_TEMPLATE,
        params: {
          fileId: file.id,
          ...(input.dither ? { dither: input.dither } : {}),
          ...(input.mode ? { mode: input.mode } : {}),
        },
        sourceKey: confirmed.key,
      }, trx),
  );
  return { pushId: push.id };
}

/**
 * A custom push from bytes the service already holds (the MCP `push_image_url` tool, issue 24):
 * the same ticket, staging key and confirm as an upload, so the bytes pass the same sniffing,
 * structure check and 10 MB limit and the push renders the confirmed copy.
 */
export async function customPushOfBytes(
  pushes: PushesService,
  userId: string,
  deviceId: string,
  input: {
    bytes: Uint8Array;
    contentType: string;
    title?: string;
    dither?: DitherKernel;
    mode?: ImageMode;
  },
) {
  const ticket = await createCustomUpload(pushes, userId, deviceId, {
    contentType: input.contentType,
    sizeBytes: input.bytes.length,
  });
  const staged = access.owned("upload", await files.findFile(pushes.db, ticket.fileId), userId);
  await pushes.store.put(staged.object_key, input.bytes, input.contentType);
  return await confirmCustomUpload(pushes, userId, deviceId, {
    fileId: ticket.fileId,
    title: input.title,
    dither: input.dither,
    mode: input.mode,
  });
}
