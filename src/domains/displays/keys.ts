/**
 * A display's keys: which display an `Access-Token` belongs to (only its SHA-256 is stored), which
 * claimed display a poll without one names by its MAC, and where the screens the domain draws are
 * kept.
 */
import type { Selectable } from "kysely";
import type { Db } from "../../schema.ts";
import { unauthorized } from "../../errors.ts";
import { sha256Hex } from "../../infra/lib/crypto.ts";
import { tag } from "../../infra/db/cache/announced.ts";
import { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { TaggedCache } from "../../infra/db/cache/tagged_cache.ts";
import * as repo from "./repository.ts";
import type { DisplaysTable } from "./tables.ts";

export type DisplayRow = Selectable<DisplaysTable>;

/** A key this service issues: base64url of 32 random bytes (43 characters). */
const KEY = /^[A-Za-z0-9_-]{16,128}$/;
/** How many known keys' hashes `authenticate` remembers (a few MB at most). */
const HASHES_MAX = 10_000;

/**
 * Where the displays domain keeps the screens it draws itself (claim codes, "nothing to show
 * yet"): shared by every display that shows the same picture, named by its SHA-256. They belong
 * to no user, so account deletion has nothing of this domain to delete.
 */
export function screenKey(sha256: string): string {
  return `displays/screens/${sha256}.png`;
}

/** The display of a key, cached by the key's hash (dropped when its row changes). */
export class DisplayKeys {
  /** Display rows by key hash, dropped when the row changes (src/infra/db/cache/feed.ts). */
  private readonly byKey: TaggedCache<DisplayRow | undefined>;
  /** Claimed display rows by MAC, the same way (key-less polls). */
  private readonly byMac: TaggedCache<DisplayRow | undefined>;
  /**
   * The hash of each key that named a display, so a fleet's polls hash each key once, not on
   * every poll (the digest was a tenth of an unchanged poll's CPU, issue 40). Only keys that
   * were found are kept: a stream of unknown keys fills nothing. Cleared when full.
   */
  readonly #hashes = new Map<string, string>();

  constructor(private readonly db: Db, changes?: ChangeFeed) {
    const feed = changes ?? ChangeFeed.disabled();
    this.byKey = feed.cache();
    this.byMac = feed.cache();
  }

  /**
   * The claimed display of a MAC (12 lower-case hex characters), for a poll that sends no key;
   * undefined when none. Cached only when found: a claim makes the row claimed by an update the
   * cache hears of only through the row it replaces, if any.
   */
  claimedByMac(mac: string): Promise<DisplayRow | undefined> {
    return this.byMac.get(
      mac,
      (row) => row ? [tag.display(row.id)] : null,
      () => repo.findClaimedByMac(this.db, mac),
    );
  }

  /** The display of a key: pending or claimed; anything else (or a malformed key) is 401. */
  async authenticate(token: string | null): Promise<DisplayRow> {
    if (token === null) throw unauthorized("Unknown display key");
    const key = token.trim();
    const known = this.#hashes.get(key);
    if (known === undefined && !KEY.test(key)) throw unauthorized("Unknown display key");
    const hash = known ?? sha256Hex(key);
    // Cached only when found (a stream of unknown keys fills nothing).
    const display = await this.byKey.get(
      hash,
      (row) => row ? [tag.display(row.id)] : null,
      () => repo.findByKeyHash(this.db, hash),
    );
    if (!display || display.status === "replaced") throw unauthorized("Unknown display key");
    if (display.status === "claimed" && !display.device_id) {
      throw unauthorized("Unknown display key");
    }
    if (known === undefined) {
      if (this.#hashes.size >= HASHES_MAX) this.#hashes.clear();
      this.#hashes.set(key, hash);
    }
    return display;
  }
}
