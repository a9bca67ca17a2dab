/** Playlist procedures (CONTRACT.md "Screens that keep themselves current"): user token or PAT. */
import { router } from "../../infra/trpc/init.ts";
import { createPlaylist } from "./create_playlist.ts";
import { deletePlaylist } from "./delete_playlist.ts";
import { getDevicePlaylist } from "./get_device_playlist.ts";
import { getPlaylist } from "./get_playlist.ts";
import { listPlaylists } from "./list_playlists.ts";
import { setDevicePlaylist } from "./set_device_playlist.ts";
import { updatePlaylist } from "./update_playlist.ts";

export const playlistsRouter = router({
  createPlaylist,
  listPlaylists,
  getPlaylist,
  updatePlaylist,
  deletePlaylist,
  getDevicePlaylist,
  setDevicePlaylist,
});
