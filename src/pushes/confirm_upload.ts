import { z } from "zod";
import { uuidParam } from "../lib/params.ts";
import { DITHER_KERNELS } from "../render/types.ts";
import { userOrPatProcedure } from "../trpc/auth.ts";
import { confirmCustomUpload } from "./custom.ts";
import { PUSH_ERRORS } from "./meta.ts";

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
  .input(z.object({
    id: uuidParam,
    fileId: uuidParam,
    title: z.string().max(200).optional(),
    // Issue 12 (docs/decisions.md): the error diffusion of this push; default atkinson.
    dither: z.enum(DITHER_KERNELS).optional().meta({
      description:
        "Error diffusion: atkinson (default, photos), floyd-steinberg (smooth gradients) or threshold (line art and text)",
    }),
  }))
  .output(z.object({ pushId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    confirmCustomUpload(ctx.services.pushes, ctx.caller.userId, input.id, input)
  );
