/**
 * Password hashing with scrypt (memory-hard, RFC 7914) on Deno's thread pool, so a login never
 * blocks the request loop. Stored as `scrypt$N$r$p$salt$hash` (base64).
 */
import { scrypt, timingSafeEqual } from "node:crypto";
import { Buffer } from "node:buffer";

const N = 2 ** 15, R = 8, P = 1, KEY_LENGTH = 32;
const MAXMEM = 128 * N * R * 2;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize("NFKC"),
      salt,
      KEY_LENGTH,
      { N: n, r, p, maxmem: 128 * n * r * 2 },
      (err, key) => err ? reject(err) : resolve(key),
    )
  );
}

/** Hashes a password with a fresh 16-byte salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = Buffer.from(crypto.getRandomValues(new Uint8Array(16)));
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** Verifies a password in constant time; false for any malformed stored hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const params = [Number(n), Number(r), Number(p)];
  if (params.some((v) => !Number.isInteger(v) || v < 1) || 128 * params[0] * params[1] > MAXMEM) {
    return false;
  }
  const actual = await derive(
    password,
    Buffer.from(salt, "base64"),
    params[0],
    params[1],
    params[2],
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let dummyHash: Promise<string> | undefined;

/**
 * Burns the same work as a real verification. Login for an unknown user calls this so that it
 * costs the same time as a wrong password (no user enumeration by timing).
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword("dummy password for timing equalisation");
  await verifyPassword(password, await dummyHash);
  return false;
}
