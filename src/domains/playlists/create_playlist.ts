import { withExample } from "../../infra/http/operation.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { createPlaylistSchema } from "./inputs.ts";
import { AUTH_ERRORS, BODY_ERRORS } from "./meta.ts";
import { playlistSchema } from "./views.ts";

/** POST /api/playlists: 201 with the playlist. */
export const createPlaylist = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/playlists",
      tags: ["playlists"],
      summary: "Create a playlist",
      description: "Items shown in order, each for its `durationSeconds`, skipping those " +
        "outside their `days`/`from`/`until` in the playlist's `timeZone`: one plugin's full " +
        "view, or a mashup of plugins in a layout's slots.",
      errorResponses: { ...AUTH_ERRORS, 400: BODY_ERRORS },
    },
    status: 201,
  })
  .input(withExample(createPlaylistSchema, {
    name: "Kitchen",
    timeZone: "Europe/Berlin",
    items: [
      { pluginId: "0190b7d2-0000-7000-8000-000000000001", durationSeconds: 300 },
      {
        mashup: {
          layout: "1Lx1R",
          pluginIds: [
            "0190b7d2-0000-7000-8000-000000000001",
            "0190b7d2-0000-7000-8000-000000000002",
          ],
        },
        durationSeconds: 600,
        days: [1, 2, 3, 4, 5],
        from: "07:00",
        until: "09:00",
      },
    ],
  }))
  .output(playlistSchema)
  .mutation(({ ctx, input }) => ctx.services.playlists.create(ctx.caller.userId, input));
