/**
 * Which addresses a link fetch may connect to (CONTRACT.md "Targetless contents": no private or
 * loopback addresses). Pure functions over address text, so every range is a unit test.
 *
 * IPv4: everything but the special-purpose ranges of RFC 6890 and its successors (this network,
 * private, CGNAT, loopback, link-local (cloud metadata), IETF, documentation, benchmarking,
 * 6to4 relay, multicast, reserved, broadcast). IPv6: only global unicast (2000::/3) outside the
 * special ranges; v4-mapped, v4-compatible, NAT64 and 6to4 addresses are judged by the IPv4
 * address they carry. Zone ids (`fe80::1%eth0`) and anything unparsable are refused.
 */

/** Why an address is refused, or null when it is public. */
export type AddressVerdict = null | "private" | "loopback" | "link-local" | "reserved" | "invalid";

const V4_BLOCKED: Array<[string, number, Exclude<AddressVerdict, null>]> = [
  ["0.0.0.0", 8, "reserved"], // "this network", unspecified
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "private"], // shared address space (CGNAT)
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"], // includes 169.254.169.254, cloud metadata
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"], // IETF protocol assignments
  ["192.0.2.0", 24, "reserved"], // TEST-NET-1
  ["192.88.99.0", 24, "reserved"], // 6to4 relay anycast
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"], // benchmarking
  ["198.51.100.0", 24, "reserved"], // TEST-NET-2
  ["203.0.113.0", 24, "reserved"], // TEST-NET-3
  ["224.0.0.0", 4, "reserved"], // multicast
  ["240.0.0.0", 4, "reserved"], // reserved, and 255.255.255.255 broadcast
];

/** Parses dotted-quad IPv4 (four decimal parts, no leading zeros); null otherwise. */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

const V4_RANGES = V4_BLOCKED.map(([base, bits, verdict]) => ({
  base: parseIPv4(base)!,
  size: 2 ** (32 - bits),
  verdict,
}));

/** The verdict on an IPv4 address given as a 32-bit number. */
function judgeV4(value: number): AddressVerdict {
  for (const range of V4_RANGES) {
    if (value >= range.base && value < range.base + range.size) return range.verdict;
  }
  return null;
}

/** Parses IPv6 text (with `::` and an optional dotted-quad tail) into 8 groups; null otherwise. */
export function parseIPv6(text: string): number[] | null {
  if (text.includes("%")) return null; // zone ids name an interface: never a public address
  let head = text;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    head = text.slice(0, lastColon + 1);
    if (head.endsWith(":") && !head.endsWith("::")) head = head.slice(0, -1);
  }
  const group = (part: string) => (/^[0-9a-f]{1,4}$/i.test(part) ? parseInt(part, 16) : NaN);
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const left = halves[0] === "" ? [] : halves[0].split(":").map(group);
  const right = halves.length === 2 && halves[1] !== "" ? halves[1].split(":").map(group) : [];
  if ([...left, ...right].some(Number.isNaN)) return null;
  const present = left.length + right.length + tail.length;
  if (halves.length === 2) {
    if (present > 7) return null;
    return [...left, ...new Array(8 - present).fill(0), ...right, ...tail];
  }
  return present === 8 ? [...left, ...tail] : null;
}

function embeddedV4(high: number, low: number): number {
  return high * 65536 + low;
}

/** The verdict on an IPv6 address given as 8 groups. */
function judgeV6(g: number[]): AddressVerdict {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  // ::ffff:a.b.c.d (v4-mapped) and ::a.b.c.d (v4-compatible, deprecated): the IPv4 rules.
  if (zeroUpTo(5) && g[5] === 0xffff) return judgeV4(embeddedV4(g[6], g[7]));
  if (zeroUpTo(6)) {
    if (g[6] === 0 && g[7] <= 1) return g[7] === 1 ? "loopback" : "reserved";
    return judgeV4(embeddedV4(g[6], g[7]));
  }
  // 64:ff9b::/96 well-known NAT64 prefix: judged by the IPv4 address it translates to.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return judgeV4(embeddedV4(g[6], g[7]));
  }
  if ((g[0] & 0xe000) !== 0x2000) {
    // Outside global unicast: unique local fc00::/7, link-local fe80::/10, multicast ff00::/8,
    // NAT64 local-use 64:ff9b:1::/48, discard 100::/64, and the rest of the unassigned space.
    if ((g[0] & 0xfe00) === 0xfc00) return "private";
    if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
    return "reserved";
  }
  // 2002::/16 6to4: the IPv4 address in bits 16-47.
  if (g[0] === 0x2002) return judgeV4(embeddedV4(g[1], g[2]));
  // 2001::/23 IETF protocol assignments (Teredo 2001::/32 carries an IPv4 address too) and
  // 2001:db8::/32 documentation.
  if (g[0] === 0x2001 && (g[1] < 0x0200 || g[1] === 0x0db8)) return "reserved";
  // 3fff::/20 documentation (RFC 9637).
  if (g[0] === 0x3fff && g[1] < 0x1000) return "reserved";
  return null;
}

/** Judges one address as DNS or a URL gives it (IPv6 with or without brackets). */
export function judgeAddress(address: string): AddressVerdict {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const v4 = parseIPv4(text);
  if (v4 !== null) return judgeV4(v4);
  const v6 = parseIPv6(text);
  return v6 ? judgeV6(v6) : "invalid";
}

/** True when `hostname` (as `URL.hostname` gives it) is an IP literal rather than a name. */
export function isIpLiteral(hostname: string): boolean {
  return parseIPv4(hostname) !== null || hostname.startsWith("[");
}

/**
 * Names that must never be resolved through DNS (RFC 6761 `localhost`, and names without a dot,
 * which a resolver's search list would complete to an internal host).
 */
export function isForbiddenName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost") || !name.includes(".");
}
