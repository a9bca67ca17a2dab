import { withExample } from "../../infra/http/operation.ts";
import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "../devices/meta.ts";
import { devicePlaylistSchema } from "./views.ts";

/**
 * PUT /api/devices/{id}/playlist: the device runs the playlist from its first due item now (one
 * playlist may run on many devices, each drawn for its own panel); null stops it.
 */
export const setDevicePlaylist = userOrPatProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/devices/{id}/playlist",
      tags: ["playlists"],
      summary: "Run a playlist on a device",
      description: "The device shows the playlist's first due item at once (a display at its " +
        "next poll, an MQTT device gets `new_push`); `null` stops it, keeping what it shows.",
      errorResponses: {
        ...OWNER_ERRORS,
        400: "Device id is not a UUID, or playlistId is not a UUID or null",
        404: "Device or playlist not found",
      },
    },
  })
  .input(withExample(
    z.object({
      id: uuidParam,
      playlistId: z.uuid("must be a UUID").nullable().meta({
        description: "The caller's playlist; null stops the device's playlist",
      }),
    }).strict(),
    {
      id: "01936f3e-0000-7c3d-9e2f-1a2b3c4d5e6f",
      playlistId: "01936f3e-8a4b-7c3d-9e2f-1a2b3c4d5e6f",
    },
  ))
  .output(devicePlaylistSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.playlists.assign(ctx.caller.userId, input.id, input.playlistId)
  );
