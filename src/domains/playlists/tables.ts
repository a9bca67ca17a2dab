/** Table types of playlists (migrations/1030_playlists.sql). */
import type { ColumnType } from "kysely";
import type { PlaylistItem } from "./inputs.ts";

export interface PlaylistsTable {
  id: string;
  user_id: string;
  name: string;
  time_zone: string;
  items: ColumnType<PlaylistItem[], unknown, unknown>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** A device running a playlist, and where its rotation is. */
export interface PlaylistDevicesTable {
  device_id: string;
  playlist_id: string;
  user_id: string;
  /** The item shown; -1 before the first, or when no item is due. */
  item_index: ColumnType<number, number | undefined, number>;
  item_ends_at: ColumnType<Date, Date | undefined, Date>;
  /** Until when the owner's own push holds the screen. */
  hold_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The plugins the current item draws. */
  plugin_ids: ColumnType<string[], string[] | undefined, string[]>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface PlaylistTables {
  playlists: PlaylistsTable;
  playlist_devices: PlaylistDevicesTable;
}

declare module "../../schema.ts" {
  interface DB extends PlaylistTables {}
}
