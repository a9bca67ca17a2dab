/**
 * `GET /api/display/image/{pushId}`: the picture of a push, at the signed `image_url` a poll
 * answers (CONTRACT.md: on the service's own origin, no header needed, and the download is
 * recorded as the display fetching that push). The signature is the authorization: TRMNL's
 * firmware sends its headers only to the API host, the Kindle and Raspberry Pi clients none.
 */
import { z } from "zod";
import { defineRawRoute, publicRoute } from "../../infra/http/raw.ts";
import { uuidParam } from "../../infra/lib/params.ts";

export const displayImage = defineRawRoute({
  method: "GET",
  path: "/api/display/image/{pushId}",
  operationId: "display-image",
  summary: "The picture a display was told to show (signed URL)",
  description: "The `image_url` of `GET /api/display` for a push: a greyscale PNG drawn for the " +
    "display's panel. Its first download is recorded as the push's `fetchedAt` (push history).",
  tags: ["displays"],
  auth: publicRoute,
  params: z.object({ pushId: uuidParam }),
  query: z.object({
    expires: z.string().max(20).meta({ description: "Unix seconds" }),
    signature: z.string().max(128),
  }),
  responses: {
    200: {
      description: "The PNG",
      content: { "image/png": z.string().meta({ format: "binary" }) },
    },
    403: { description: "Expired or wrong signature" },
    404: { description: "The push is gone or has no picture" },
  },
  async handle({ ctx, params, query }) {
    const png = await ctx.services.displays.polls.picture(
      params.pushId,
      query.expires,
      query.signature,
    );
    return new Response(png as Uint8Array<ArrayBuffer>, {
      headers: {
        "content-type": "image/png",
        "content-length": String(png.byteLength),
        "cache-control": "private, max-age=60",
      },
    });
  },
});
