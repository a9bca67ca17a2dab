/** Row-to-API mapping of playlists (CONTRACT.md "Screens that keep themselves current"). */
import { z } from "zod";
import type { Selectable } from "kysely";
import { timestamp } from "../../infra/lib/wire.ts";
import { playlistItemSchema } from "./inputs.ts";
import type { PlaylistsTable } from "./tables.ts";

export const playlistSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  timeZone: z.string(),
  items: z.array(playlistItemSchema),
  deviceIds: z.array(z.uuid()).meta({
    description: "The caller's devices running it (mirroring), in id order; `[]` when none",
  }),
  createdAt: timestamp,
  updatedAt: timestamp,
}).meta({ id: "Playlist" });

export type Playlist = z.infer<typeof playlistSchema>;

export const devicePlaylistSchema = z.object({
  playlistId: z.uuid().nullable().meta({ description: "The playlist it runs; null: none" }),
}).meta({ id: "DevicePlaylist" });

/** A playlist as the API shows it, with the devices running it. */
export function toPlaylist(row: Selectable<PlaylistsTable>, deviceIds: string[] = []): Playlist {
  return {
    id: row.id,
    name: row.name,
    timeZone: row.time_zone,
    items: row.items,
    deviceIds,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
