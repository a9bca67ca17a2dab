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

/** UUID v7 (RFC 9562): 48-bit Unix milliseconds, then random bits; sorts by creation time. */
export function uuidv7(now = Date.now()): string {
  crypto.getRandomValues(bytes);
  for (let i = 0; i < 6; i++) bytes[i] = Math.floor(now / 2 ** (8 * (5 - i))) & 0xff;
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
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
