/** ASCII of each byte's two hex digits: `HEX_ASCII[2b]` and `HEX_ASCII[2b + 1]`. */
const HEX_ASCII = new Uint8Array(512);
for (let b = 0; b < 256; b++) {
  const hex = b.toString(16).padStart(2, "0");
  HEX_ASCII[2 * b] = hex.charCodeAt(0);
  HEX_ASCII[2 * b + 1] = hex.charCodeAt(1);
}
const DASH = 0x2d;
// Reused by every call (the function is synchronous): every request gets an id, and building it
// from string pieces allocated ~700 bytes each time (issue 10: GC pauses of the request loop).
const bytes = new Uint8Array(16);
const ascii = new Uint8Array(36);
const decoder = new TextDecoder();

// The last id's millisecond and its 12-bit counter (rand_a, RFC 9562 6.2 method 1): ids made in
// one millisecond, or after the clock stepped back, still sort in the order they were made. Lists
// keyset on (created_at, id), and two rows of one millisecond once came back in random order.
let lastMs = -1;
let counter = 0;

/**
 * UUID v7 (RFC 9562): 48-bit Unix milliseconds, a 12-bit counter, then random bits; each id sorts
 * after the one before it in this process. A new millisecond seeds the counter with 11 random bits
 * (headroom of 2,048 ids before it carries into the next millisecond).
 */
export function uuidv7(now = Date.now()): string {
  crypto.getRandomValues(bytes);
  if (now > lastMs) {
    lastMs = now;
    counter = ((bytes[6] & 0x07) << 8) | bytes[7];
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  for (let i = 0; i < 6; i++) bytes[i] = Math.floor(lastMs / 2 ** (8 * (5 - i))) & 0xff;
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) ascii[at++] = DASH;
    ascii[at++] = HEX_ASCII[2 * bytes[i]];
    ascii[at++] = HEX_ASCII[2 * bytes[i] + 1];
  }
  return decoder.decode(ascii);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for any RFC 9562 UUID string (any version); used before a value reaches a uuid column. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
