import { withExample } from "../../infra/http/operation.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { updatePlaylistSchema } from "./inputs.ts";
import { BODY_ERRORS, PLAYLIST_ERRORS } from "./meta.ts";
import { playlistSchema } from "./views.ts";

/** PUT /api/playlists/{id}: any fields; its devices start again from its first due item. */
export const updatePlaylist = userOrPatProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/playlists/{id}",
      tags: ["playlists"],
      summary: "Change a playlist",
      description: "Any of `name`, `timeZone`, `items`; the devices running it start again " +
        "from its first due item.",
      errorResponses: { ...PLAYLIST_ERRORS, 400: `id is not a UUID; ${BODY_ERRORS}` },
    },
  })
  .input(withExample(updatePlaylistSchema.extend({ id: uuidParam }), {
    id: "01936f3e-8a4b-7c3d-9e2f-1a2b3c4d5e6f",
    name: "Weekday mornings",
    timeZone: "Europe/Berlin",
  }))
  .output(playlistSchema)
  .mutation(({ ctx, input }) => {
    const { id, ...fields } = input;
    return ctx.services.playlists.update(ctx.caller.userId, id, fields);
  });
