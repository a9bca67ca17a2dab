/** OpenAPI meta shared by the playlist endpoints (CONTRACT.md "Screens that keep themselves current"). */

/** Every playlist endpoint takes a user token or a PAT. */
export const AUTH_ERRORS = { 401: "Unauthorized" } as const;

/** An endpoint of one playlist: its id is checked, another user's is unknown. */
export const PLAYLIST_ERRORS = {
  ...AUTH_ERRORS,
  400: "id is not a UUID",
  404: "Playlist not found",
} as const;

/** What a playlist's body is refused for. */
export const BODY_ERRORS =
  "A field (the message names it), an item's plugin not the caller's (`items.N: plugin … not found`), or over 100 playlists";
