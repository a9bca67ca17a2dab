/** Claim codes (SPEC 2.7): 6 characters, present only while a device is unbound. */
import { randomString } from "../../infra/lib/crypto.ts";

/** Upper-case letters and digits without the look-alikes 0/O and 1/I/L. */
const ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/** A fresh claim code. */
export function newClaimCode(): string {
  return randomString(6, ALPHABET);
}
