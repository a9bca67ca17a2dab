import { z } from "zod";
import { jsonInteger } from "../../infra/lib/json_number.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { uploadedRawItemSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** The body of `POST /api/raw-items/upload` (the MCP `add_note` tool takes its note part). */
export const uploadRawItemInput = withExample(
  z.object({
    title: z.string().optional(),
    text: z.string().optional().meta({ description: "The note; up to 20,000 characters" }),
    attachments: z.array(z.object({
      contentType: z.string().meta({ description: "image/*" }),
      sizeBytes: jsonInteger((n) => n.min(0)),
      filename: z.string().optional(),
    })).optional().meta({ description: "Up to 10 pictures of up to 10 MB each" }),
  }),
  {
    title: "Weekend",
    text: "Hike at eight, lunch at the hut. Bring the blue thermos.",
    attachments: [{ contentType: "image/jpeg", sizeBytes: 482113, filename: "lake.jpg" }],
  },
);

/** POST /api/raw-items/upload: a note and/or up to 10 pictures, each with its upload ticket. */
export const uploadRawItem = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/raw-items/upload",
      tags: ["content"],
      summary: "Upload a note and pictures (upload tickets for the pictures)",
      successDescription: "Created",
      errorResponses: {
        400: "Neither text nor attachments, text over 20,000 characters, over 10 attachments, " +
          "or a contentType that is not image/*",
        401: "Unauthorized",
        413: "An attachment's declared size is over 10 MB",
      },
    },
    status: 201,
  })
  .input(uploadRawItemInput)
  .output(uploadedRawItemSchema)
  .mutation(({ ctx, input }) => ctx.services.content.upload(ctx.caller.userId, input));
