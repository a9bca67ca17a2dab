/** Unlinking devices from a deleted account (SPEC 3.6, 4.1): back to claimable, not deleted. */
import type { Trx } from "../schema.ts";
import { randomString } from "../lib/crypto.ts";

/** Unambiguous characters for the 6-character claim code (no 0/O, 1/I). */
const CLAIM_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** A fresh claim code for an unbound device (SPEC 2.7). */
export function newClaimCode(): string {
  return randomString(6, CLAIM_ALPHABET);
}

/** Returns every device of a user to the unbound, claimable state, in the caller's transaction. */
export async function unlinkDevicesOfUser(trx: Trx, userId: string): Promise<void> {
  const devices = await trx.selectFrom("devices").select("id").where("owner_id", "=", userId)
    .forUpdate().execute();
  for (const { id } of devices) {
    await trx.updateTable("devices").set({
      owner_id: null,
      bound_at: null,
      claim_code: newClaimCode(),
      updated_at: new Date(),
    }).where("id", "=", id).execute();
  }
}
