/** Table types of displays (migrations/0901_displays.sql). */
import type { ColumnType, Generated } from "kysely";

/** The fields of a profile an owner may set. */
export interface OwnerProfile {
  model: string;
  width: number;
  height: number;
  bitDepth: 1 | 2 | 4;
  rotation: 0 | 90 | 180 | 270;
  /** The nightly sleep window (null: none). */
  sleepWindow: { start: string; end: string; timeZone: string } | null;
}

export type DisplayStatus = "pending" | "claimed" | "replaced" | "enrollment";

export interface DisplaysTable {
  id: string;
  /** The Wi-Fi MAC as 12 lower-case hex characters; null for an unused enrollment token. */
  mac: string | null;
  /** The user who made the enrollment token this display's key was (null: set up by code). */
  enrolled_by: string | null;
  /** The enrollment token's name, if given. */
  name: string | null;
  /** SHA-256 (hex) of the display's `api_key`. */
  key_hash: string;
  /** No longer kept (null): each setup answers a new key (migrations/0995_display_ownership.sql). */
  api_key: string | null;
  /** The claim code while pending. */
  friendly_id: string | null;
  code_expires_at: Date | null;
  status: DisplayStatus;
  /** The device row it became (devices domain), once claimed. */
  device_id: string | null;
  /** The `Model` header of its last poll. */
  model: string | null;
  /** The `Width`/`Height` headers of its last poll. */
  reported_width: number | null;
  reported_height: number | null;
  /** What the owner set (`PUT .../display-profile`); pass the raw object (postgres.js jsonb). */
  profile: ColumnType<
    Partial<OwnerProfile>,
    Partial<OwnerProfile> | undefined,
    Partial<OwnerProfile>
  >;
  refresh_rate: Generated<number>;
  created_at: ColumnType<Date, Date | undefined, never>;
  claimed_at: Date | null;
  /** What the display's last poll reported while pending (its headers), and when. */
  reported: ColumnType<
    Record<string, string> | null,
    Record<string, string> | null | undefined,
    Record<string, string> | null
  >;
  seen_at: Date | null;
  /** When the owner asked for a reset its next poll has not answered yet (null: none). */
  reset_requested_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /**
   * Whether polls that carry only this display's MAC (no `Access-Token`) show its pictures: the
   * owner's choice, off by default (migrations/1010_display_keyless.sql).
   */
  keyless: Generated<boolean>;
}

/** `GET /api/setup` hits per client address and minute. */
export interface DisplayRateWindowsTable {
  key: string;
  window_start: Date;
  hits: number;
}

/** A display's log entry (`POST /api/log`). */
export interface DisplayLogsTable {
  id: string;
  device_id: string;
  level: string;
  message: string;
  /** The entry as sent; pass the raw object (postgres.js jsonb). */
  entry: ColumnType<unknown, unknown, unknown>;
  /** The stored entry's and message's size in bytes (a display keeps at most 1 MiB). */
  bytes: ColumnType<number, number | undefined, number>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/**
 * A display behind another provider (migrations/1040_device_transports.sql): its feed token's
 * hash, its sealed webhook, what was last posted and the last failure.
 */
export interface DisplayProvidersTable {
  device_id: string;
  provider: string;
  /** SHA-256 (hex) of the `image_feed` URL's token; null for another provider. */
  feed_token_hash: string | null;
  /** The `trmnl_webhook` URL, sealed (src/infra/lib/sealed.ts); null for another provider. */
  webhook_sealed: string | null;
  /** The webhook URL's host, the one part of it the owner is shown. */
  webhook_host: string | null;
  posted_push_id: string | null;
  posted_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface DisplayTables {
  displays: DisplaysTable;
  display_providers: DisplayProvidersTable;
  display_logs: DisplayLogsTable;
  display_rate_windows: DisplayRateWindowsTable;
}

declare module "../../schema.ts" {
  interface DB extends DisplayTables {}
}
