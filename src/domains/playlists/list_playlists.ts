import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { AUTH_ERRORS } from "./meta.ts";
import { playlistSchema } from "./views.ts";

/** GET /api/playlists: the caller's playlists, newest first. */
export const listPlaylists = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/playlists",
      tags: ["playlists"],
      summary: "List playlists",
      errorResponses: AUTH_ERRORS,
    },
  })
  .input(z.void())
  .output(z.array(playlistSchema))
  .query(({ ctx }) => ctx.services.playlists.list(ctx.caller.userId));
