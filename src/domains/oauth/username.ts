/** Usernames for provider sign-ins (SPEC 2.1): the email's local part plus a random suffix. */
import { randomString } from "../../infra/lib/crypto.ts";

const SUFFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/**
 * `local_suffix`, within the username rule of accounts (3-32 of `[A-Za-z0-9_.-]`): characters
 * outside it are dropped, the local part is cut to 24, and an empty one becomes `user`.
 */
export function deriveUsername(email: string, suffix = randomString(6, SUFFIX_ALPHABET)): string {
  const local = email.split("@")[0].toLowerCase().replace(/[^a-z0-9_.-]/g, "").slice(0, 24);
  return `${local || "user"}_${suffix}`;
}
