/**
 * `GET /api/feeds/{token}.png`: an `image_feed` display's picture (CONTRACT.md "Displays behind
 * another provider, and image feeds"). The token is the authorization: ESPHome's
 * `online_image`, Home Assistant's generic camera and a kiosk page fetch a plain URL.
 */
import { z } from "zod";
import { defineRawRoute, publicRoute } from "../../infra/http/raw.ts";

export const displayFeed = defineRawRoute({
  method: "GET",
  path: "/api/feeds/{token}.png",
  operationId: "display-feed",
  summary: "An image feed's current picture (secret URL)",
  description: "The picture of the device the token belongs to, drawn for its profile: its " +
    "current push (a waiting one is published first, as a display's poll does), or a screen " +
    "saying nothing was pushed yet. `ETag` changes exactly when the picture does; " +
    "`If-None-Match` with it answers 304. Each fetch marks the device seen and the push fetched.",
  tags: ["displays"],
  auth: publicRoute,
  params: z.object({ token: z.string().max(256) }),
  headers: z.object({
    "If-None-Match": z.string().max(1024).optional().meta({
      description: "The `ETag` of the picture the client holds",
    }),
  }),
  responses: {
    200: {
      description: "The PNG",
      content: { "image/png": z.string().meta({ format: "binary" }) },
      headers: z.object({ ETag: z.string() }),
    },
    304: { description: "The picture is the one `If-None-Match` names" },
    404: { description: "Unknown (or replaced) token" },
  },
  async handle({ req, ctx, params }) {
    const answer = await ctx.services.displays.external.feed(
      params.token,
      req.headers.get("if-none-match"),
    );
    // Revalidated at every fetch: the picture changes when a push is published.
    const headers = { etag: answer.etag, "cache-control": "no-cache" };
    if (answer.status === 304) return new Response(null, { status: 304, headers });
    return new Response(answer.png as Uint8Array<ArrayBuffer>, {
      headers: {
        ...headers,
        "content-type": "image/png",
        "content-length": String(answer.png.byteLength),
      },
    });
  },
});
