const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** UUID v7 (RFC 9562): 48-bit Unix milliseconds, then random bits; sorts by creation time. */
export function uuidv7(now = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  for (let i = 0; i < 6; i++) bytes[i] = Math.floor(now / 2 ** (8 * (5 - i))) & 0xff;
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const h = (from: number, to: number) => {
    let out = "";
    for (let i = from; i < to; i++) out += HEX[bytes[i]];
    return out;
  };
  return `${h(0, 4)}-${h(4, 6)}-${h(6, 8)}-${h(8, 10)}-${h(10, 16)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for any RFC 9562 UUID string (any version); used before a value reaches a uuid column. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
