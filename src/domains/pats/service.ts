/** Personal access tokens (SPEC 4.3, 5.4, 5.5): creation, listing, revocation, verification. */
import type { Db, Trx } from "../../schema.ts";
import { badRequest } from "../../errors.ts";
import * as access from "../../infra/access/mod.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { randomString, sha256Hex } from "../../infra/lib/crypto.ts";
import * as repo from "./repository.ts";
import { toPat } from "./views.ts";
import { tag } from "../../infra/db/cache/announced.ts";
import { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { TaggedCache } from "../../infra/db/cache/tagged_cache.ts";

/** What an owner check of this kind answers (src/infra/access/mod.ts). */
export const PAT = access.hidden("pat", "Token not found");

type PatForAuth = Awaited<ReturnType<typeof repo.findPatForAuth>>;

const PREFIX = "pat_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BODY_LENGTH = 40; // 40 base62 characters: 238 bits of entropy
const FORMAT = new RegExp(`^${PREFIX}[0-9A-Za-z]{${BODY_LENGTH}}$`);

/** True when a bearer looks like a PAT; decides which verifier handles it. */
export function looksLikePat(bearer: string): boolean {
  return bearer.startsWith(PREFIX);
}

export class PatsService {
  /**
   * Tokens by digest as `verify` reads them, dropped when the token or its owner changes
   * (revocation, touch, disabling, deletion; src/infra/db/cache/feed.ts). Unknown digests are not
   * remembered. Revocation, expiry and disabling are checked on every use.
   */
  private readonly forAuth: TaggedCache<PatForAuth>;

  constructor(private readonly db: Db, changes: ChangeFeed = ChangeFeed.disabled()) {
    this.forAuth = changes.cache();
  }

  /** `looksLikePat`, for the authenticator (accounts), which does not import this domain. */
  looksLikePat(bearer: string): boolean {
    return looksLikePat(bearer);
  }

  /** Creates a token; the plaintext is returned here and never again. */
  async create(userId: string, input: { name: string; expiresAt?: string }, db: Db = this.db) {
    const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt);
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw badRequest("expiresAt must be in the future");
    }
    const token = PREFIX + randomString(BODY_LENGTH, BASE62);
    const row = await repo.insertPat(db, {
      id: uuidv7(),
      user_id: userId,
      name: input.name,
      token_digest: sha256Hex(token),
      prefix: token.slice(0, PREFIX.length + 6),
      last_four: token.slice(-4),
      expires_at: expiresAt,
    });
    return { ...toPat(row), token };
  }

  /** The caller's tokens, revoked ones included. */
  async list(userId: string) {
    return (await repo.listPats(this.db, userId)).map(toPat);
  }

  /**
   * Revokes a token; idempotent for the caller's own (SPEC 4.3). Another user's token, or an
   * unknown id, is 404 and changes nothing (SPEC 5.8, CONTRACT.md).
   */
  async revoke(userId: string, id: string) {
    if (!(await repo.revokePat(this.db, userId, id))) throw access.missing(PAT);
  }

  /**
   * Revokes every token of a user, in the caller's transaction (CONTRACT.md "Identity
   * providers": whoever registered someone else's email keeps no access).
   */
  async revokeAllOf(trx: Trx, userId: string) {
    await repo.revokeAllPatsOfUser(trx, userId);
  }

  /**
   * The owner of a valid token, or null. Every failure (malformed, unknown digest, revoked,
   * expired, owner deleted or disabled) is the same null, so callers answer one 401.
   */
  async verify(token: string): Promise<{ userId: string; patId: string } | null> {
    if (!FORMAT.test(token)) return null;
    const digest = sha256Hex(token);
    const row = await this.forAuth.get(
      digest,
      (r) => r ? [tag.pat(r.id), tag.user(r.user_id)] : null,
      () => repo.findPatForAuth(this.db, digest),
    );
    const now = new Date();
    if (!row || row.revoked_at || !row.owner_active) return null;
    if (row.expires_at && row.expires_at <= now) return null;
    if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= 5 * 60 * 1000) {
      await repo.touchPat(this.db, row.id, now);
      this.forAuth.delete(digest);
    }
    return { userId: row.user_id, patId: row.id };
  }
}
