/**
 * What a playlist is made of, as the API takes it (CONTRACT.md "Screens that keep themselves
 * current"): items of one plugin's view or a mashup, each with its duration and optional weekdays
 * and time window in the playlist's time zone.
 */
import { z } from "zod";
import { MASHUP_LAYOUTS, MASHUP_VIEWS } from "../../infra/html/shell.ts";
import { isTimeZone } from "../displays/sleep.ts";

/** Items one playlist may hold. */
export const MAX_ITEMS = 50;
/** Playlists one user may hold. */
export const MAX_PLAYLISTS = 100;
/** CONTRACT.md: 900 s unless the item says. */
export const DEFAULT_DURATION_SECONDS = 900;

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** When and how long an item shows: the fields every item has. */
const timing = {
  durationSeconds: z.number().int().min(5, "must be at least 5").max(
    86_400,
    "must be at most 86400",
  ).default(DEFAULT_DURATION_SECONDS).meta({ description: "How long it shows (default 900)" }),
  days: z.array(z.number().int().min(0).max(6)).min(1, "must name at least one day").max(7)
    .optional().meta({ description: "Weekdays it shows on (0 = Sunday); absent: every day" }),
  from: z.string().regex(HHMM, "must be HH:MM").optional().meta({
    description: "Local time it starts showing from, `HH:MM` (playlist's time zone)",
  }),
  until: z.string().regex(HHMM, "must be HH:MM").optional().meta({
    description: "Local time it stops showing at, `HH:MM`; before `from`: across midnight",
  }),
};

const pluginItem = z.object({
  pluginId: z.uuid("must be a UUID"),
  view: z.literal("full").optional().meta({ description: "Only `full` (the default)" }),
  ...timing,
}).strict();

const mashupItem = z.object({
  mashup: z.object({
    layout: z.enum(MASHUP_LAYOUTS),
    pluginIds: z.array(z.uuid("must be a UUID")).min(1).max(4),
  }).strict().refine(
    (m) => m.pluginIds.length === MASHUP_VIEWS[m.layout].length,
    { message: "must name one plugin per slot of the layout", path: ["pluginIds"] },
  ),
  ...timing,
}).strict();

export const playlistItemSchema = z.union([pluginItem, mashupItem]).meta({
  id: "PlaylistItem",
  description: "One plugin's full view, or a mashup of plugins in a layout's slots",
});

export type PlaylistItem = z.infer<typeof playlistItemSchema>;

const fields = {
  name: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
  timeZone: z.string().max(64).refine(isTimeZone, "must be an IANA time zone").meta({
    description: "IANA time zone of the items' days and times (default UTC)",
  }),
  items: z.array(playlistItemSchema).max(MAX_ITEMS, `must be at most ${MAX_ITEMS} items`),
};

export const createPlaylistSchema = z.object({
  name: fields.name,
  timeZone: fields.timeZone.optional(),
  items: fields.items,
}).strict();

export type CreatePlaylistInput = z.infer<typeof createPlaylistSchema>;

export const updatePlaylistSchema = createPlaylistSchema.partial().strict();

export type UpdatePlaylistInput = z.infer<typeof updatePlaylistSchema>;

/** The plugins an item draws, in slot order. */
export function pluginsOf(item: PlaylistItem): string[] {
  return "mashup" in item ? item.mashup.pluginIds : [item.pluginId];
}
