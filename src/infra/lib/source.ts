/**
 * The source a client is counted as by rate limits (logins, display setups, claim codes): an IPv4
 * address as it is, the /64 prefix of an IPv6 one. One IPv6 host commonly holds a whole /64, so
 * counting single IPv6 addresses would give it 2^64 allowances.
 */

/**
 * The source a client is counted as: an IPv4 address as it is (also when IPv4-mapped),
 * the /64 prefix of an IPv6 address (`2001:db8:0:1::/64`), anything else as given.
 */
export function sourceOf(address: string): string {
  const ip = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "").toLowerCase();
  if (!ip.includes(":")) return ip;
  const groups = ipv6Groups(ip);
  if (!groups) return ip;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join(".");
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (an IPv4 tail is two), or null if not one. */
function ipv6Groups(ip: string): number[] | null {
  const halves = ip.split("::");
  if (halves.length > 2) return null;
  const parse = (half: string): number[] | null => {
    const out: number[] = [];
    const parts = half === "" ? [] : half.split(":");
    for (const [i, part] of parts.entries()) {
      const v4 = part.match(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
      if (v4 && i === parts.length - 1) {
        const [a, b, c, d] = v4.slice(1).map(Number);
        if (Math.max(a, b, c, d) > 255) return null;
        out.push(a << 8 | b, c << 8 | d);
      } else if (/^[0-9a-f]{1,4}$/.test(part)) out.push(parseInt(part, 16));
      else return null;
    }
    return out;
  };
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  return [...head, ...Array<number>(missing).fill(0), ...tail];
}
