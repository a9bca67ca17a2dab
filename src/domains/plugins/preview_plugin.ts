/**
 * GET /api/plugins/{id}/preview: a plugin's view drawn with its data, as the PNG a display of
 * that size and grey depth would get (the same bytes for the same markup and data). A raw route
 * because it answers PNG bytes; the credential is checked first.
 */
import { z } from "zod";
import { callerAuth, defineRawRoute, type RawRoute } from "../../infra/http/raw.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { PLUGIN_VIEWS } from "./inputs.ts";

/** A panel side, as the display profile bounds it. */
export const MAX_PREVIEW_SIDE = 4096;
/** Pixels of one preview: the display profile's bound. */
export const MAX_PREVIEW_PIXELS = 4_000_000;

/** A side in the query string: digits only, 16 to MAX_PREVIEW_SIDE. */
const side = (fallback: number) =>
  z.string().regex(/^\d{1,5}$/, "must be an integer").default(String(fallback))
    .transform(Number)
    .pipe(
      z.number().min(16, "must be at least 16").max(
        MAX_PREVIEW_SIDE,
        `must be at most ${MAX_PREVIEW_SIDE}`,
      ),
    ).meta({ description: `Pixels, 16 to ${MAX_PREVIEW_SIDE} (default ${fallback})` });

export const previewPlugin: RawRoute = defineRawRoute({
  method: "GET",
  path: "/api/plugins/{id}/preview",
  operationId: "plugins-previewPlugin",
  summary: "Preview a plugin at a panel's size and grey depth",
  description: "Draws the view with the plugin's data (a polling plugin fetches first when its " +
    "data is older than `refreshMinutes`), exactly as a display of that size and depth gets it: " +
    "the page in a headless Chromium with no network, text kept crisp and pictures dithered.",
  tags: ["plugins"],
  auth: callerAuth(["user", "pat"]),
  params: z.object({ id: uuidParam }),
  query: z.object({
    view: z.enum(PLUGIN_VIEWS).default("full"),
    width: side(800),
    height: side(480),
    bitDepth: z.enum(["1", "2", "4"]).default("1").transform(Number).meta({
      description: "Grey depth of the PNG: 1, 2 or 4 bits (default 1)",
    }),
  }).refine((q) => q.width * q.height <= MAX_PREVIEW_PIXELS, {
    message: `width x height must be at most ${MAX_PREVIEW_PIXELS} pixels`,
    path: ["width"],
  }),
  responses: {
    200: {
      description: "The PNG: grey, `bitDepth` bits, exactly `width` x `height`",
      content: { "image/png": z.string().meta({ format: "binary" }) },
    },
    400: { description: "invalid_request: a parameter, or markup that does not render" },
    404: { description: "not_found: Plugin not found" },
    429: { description: "rate_limited: two previews of yours are drawing already (Retry-After)" },
    503: {
      description: "unavailable: the renderer is busy, or the page ran past its 20 s deadline",
    },
  },
  async handle({ req, ctx, auth, params, query }) {
    const png = await ctx.services.plugins.preview(auth.userId, params.id, {
      view: query.view,
      panel: { width: query.width, height: query.height, bitDepth: query.bitDepth as 1 | 2 | 4 },
      signal: req.signal,
    });
    return new Response(png as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": "image/png", "cache-control": "no-store" },
    });
  },
});
