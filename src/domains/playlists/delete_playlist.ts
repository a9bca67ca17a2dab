import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { PLAYLIST_ERRORS } from "./meta.ts";

/** DELETE /api/playlists/{id}: 204; its devices stop rotating, their pushes stay in history. */
export const deletePlaylist = userOrPatProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/playlists/{id}",
      tags: ["playlists"],
      summary: "Delete a playlist",
      successDescription: "Deleted (no body); the devices running it keep what they show",
      errorResponses: PLAYLIST_ERRORS,
    },
    status: 204,
  })
  .input(z.object({ id: uuidParam }))
  .output(z.void())
  .mutation(async ({ ctx, input }) => {
    await ctx.services.playlists.delete(ctx.caller.userId, input.id);
  });
