/**
 * What the database announces, declared once: each table with a `dds_notify_change` trigger
 * (migrations/0810_change_notifications.sql), the tag it announces and from which column, on
 * which statements. The write tracking and the caches' tag type are derived from it, and
 * `announced_test.ts` holds it against the migrations' triggers, so a cached table without a
 * trigger, a trigger without a cache tag, or two lists that disagree fail a test.
 */

/** A statement a trigger fires on. */
export type TriggerEvent = "INSERT" | "UPDATE" | "DELETE";

/** One announcing trigger. */
export interface Announcement {
  /** The tag kind: a notification's payload is `<tag>:<the column's value>`. */
  tag: TagKind;
  /** The column whose value the tag carries. */
  column: string;
  on: readonly TriggerEvent[];
  /** An UPDATE is announced only when one of these columns changes (absent: any update). */
  columns?: readonly string[];
}

/** The kinds of thing a cache entry can depend on. */
export type TagKind = "user" | "session" | "pat" | "device" | "push" | "display";

/** A cache tag: what a cached value was built from. Only announced kinds type-check. */
export type Tag = `${TagKind}:${string}`;

/** Every announcing trigger, by table (a table may announce more than one tag). */
export const ANNOUNCED: Readonly<Record<string, Announcement | readonly Announcement[]>> = {
  users: { tag: "user", column: "id", on: ["UPDATE", "DELETE"] },
  sessions: { tag: "session", column: "id", on: ["UPDATE", "DELETE"] },
  personal_access_tokens: { tag: "pat", column: "id", on: ["UPDATE", "DELETE"] },
  // `/auth/me` shows the user's provider links and subscription.
  oauth_accounts: { tag: "user", column: "user_id", on: ["INSERT", "UPDATE", "DELETE"] },
  subscriptions: { tag: "user", column: "user_id", on: ["INSERT", "UPDATE", "DELETE"] },
  // Whether a device report's owner watches devices (src/domains/webhooks/service.ts).
  // A delivery's lease and failure counts change no subscription: not announced (migrations/1000).
  webhooks: {
    tag: "user",
    column: "user_id",
    on: ["INSERT", "UPDATE", "DELETE"],
    columns: ["events", "disabled_at", "user_id"],
  },
  // Only the owner and the latest push of a device are cached: state reports stay silent.
  devices: {
    tag: "device",
    column: "id",
    on: ["UPDATE", "DELETE"],
    columns: ["owner_id", "latest_push_id"],
  },
  pushes: [
    { tag: "push", column: "id", on: ["UPDATE", "DELETE"] },
    // Whether a device has a push waiting (the display's poll): arrivals, departures, status.
    {
      tag: "device",
      column: "device_id",
      on: ["INSERT", "UPDATE", "DELETE"],
      columns: ["status", "render_failed_at"],
    },
  ],
  // A display's row by its key (the TRMNL poll): status, profile, reset request.
  displays: { tag: "display", column: "id", on: ["UPDATE", "DELETE"] },
  // A display's button action, read at every poll (src/domains/buttons/service.ts).
  display_buttons: { tag: "device", column: "device_id", on: ["INSERT", "UPDATE", "DELETE"] },
  // A device's playlist rotation, read at every display poll (src/domains/playlists/service.ts).
  playlist_devices: { tag: "device", column: "device_id", on: ["INSERT", "UPDATE", "DELETE"] },
};

/** The announcements of one table, as a list. */
export function announcementsOf(table: string): readonly Announcement[] {
  const a = ANNOUNCED[table];
  return a === undefined ? [] : Array.isArray(a) ? a : [a as Announcement];
}

const tablesWhere = (test: (a: Announcement) => boolean) =>
  new Set(Object.keys(ANNOUNCED).filter((t) => announcementsOf(t).some(test)));

/** Tables whose updates (of any column) and deletes are announced. */
export const UPDATES_ANNOUNCED: ReadonlySet<string> = tablesWhere((a) =>
  a.on.includes("UPDATE") && !a.columns
);
/** Tables whose inserts are announced too. */
export const INSERTS_ANNOUNCED: ReadonlySet<string> = tablesWhere((a) => a.on.includes("INSERT"));
/** Of `devices`, only a change of these columns (or a delete) is announced. */
export const DEVICE_COLUMNS: ReadonlySet<string> = new Set(announcementsOf("devices")[0].columns);

/** Cache tags, built one way everywhere. */
export const tag = {
  user: (id: string): Tag => `user:${id}`,
  session: (id: string): Tag => `session:${id}`,
  pat: (id: string): Tag => `pat:${id}`,
  device: (id: string): Tag => `device:${id}`,
  push: (id: string): Tag => `push:${id}`,
  display: (id: string): Tag => `display:${id}`,
} satisfies Record<TagKind, (id: string) => Tag>;
