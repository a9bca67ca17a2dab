import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { PLAYLIST_ERRORS } from "./meta.ts";
import { playlistSchema } from "./views.ts";

/** GET /api/playlists/{id}: another user's playlist is 404. */
export const getPlaylist = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/playlists/{id}",
      tags: ["playlists"],
      summary: "Get a playlist",
      errorResponses: PLAYLIST_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(playlistSchema)
  .query(({ ctx, input }) => ctx.services.playlists.get(ctx.caller.userId, input.id));
