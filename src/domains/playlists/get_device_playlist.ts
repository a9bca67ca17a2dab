import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "../devices/meta.ts";
import { devicePlaylistSchema } from "./views.ts";

/** GET /api/devices/{id}/playlist: the playlist the device runs, or null. */
export const getDevicePlaylist = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/playlist",
      tags: ["playlists"],
      summary: "Read a device's playlist",
      errorResponses: OWNER_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(devicePlaylistSchema)
  .query(({ ctx, input }) => ctx.services.playlists.assignment(ctx.caller.userId, input.id));
