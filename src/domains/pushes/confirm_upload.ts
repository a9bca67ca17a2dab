import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { DITHER_KERNELS, IMAGE_FITS, IMAGE_MODES } from "../../infra/render/types.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { PUSH_ERRORS } from "./meta.ts";
import { withExample } from "../../infra/http/operation.ts";

/** The input of the custom-push confirm (the MCP `push_image_url` tool takes its options). */
export const confirmUploadInput = withExample(
  z.object({
    id: uuidParam,
    fileId: uuidParam,
    title: z.string().max(200).optional(),
    // Issue 12 (docs/decisions.md): the error diffusion of this push; default atkinson.
    dither: z.enum(DITHER_KERNELS).optional().meta({
      description:
        "Error diffusion: atkinson (default for photos), floyd-steinberg (smooth gradients) or threshold (default for documents; line art and text)",
    }),
    // Issue 26 (docs/decisions.md): a photo of paper or a picture; default auto.
    mode: z.enum(IMAGE_MODES).optional().meta({
      description:
        "auto (default): decided from the image; document: a photo of a page, receipt, whiteboard or note, its uneven light flattened to black on white; photo: toned and dithered as a picture",
    }),
    // Issue 34 (docs/decisions.md): white bands or a filled frame.
    fit: z.enum(IMAGE_FITS).optional().meta({
      description:
        "contain: the whole picture, white bands beside or above it; cover: the display filled, the picture cropped at the centre. Default: cover when cropping keeps at least 3/4 of the picture (a 4:3 or 3:2 photo, a 16:9 screenshot on an 800x480 panel) and it is not a document; else contain",
    }),
  }),
  {
    id: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10",
    fileId: "0193a0c1-3a5b-7c6d-8e9f-0a1b2c3d4e5f",
    title: "Holiday",
    dither: "atkinson",
    fit: "cover",
  },
);

/** POST /api/devices/{id}/custom-push/confirm: verifies the upload; the push starts in PREPARE. */
export const confirmUpload = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/{id}/custom-push/confirm",
      tags: ["pushes"],
      summary: "Confirm a custom image upload",
      errorResponses: {
        ...PUSH_ERRORS,
        404: "Device or upload not found",
        409: "Upload not confirmable (missing, not an image, over 10 MB, already confirmed)",
      },
    },
  })
  .input(confirmUploadInput)
  .output(z.object({ pushId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx.services.pushes.confirmCustomUpload(ctx.caller.userId, input.id, input)
  );
