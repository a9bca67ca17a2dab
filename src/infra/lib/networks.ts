/**
 * Address ranges written as CIDR (`10.0.0.0/8`, `fc00::/7`), and whether a client's address is in
 * one of them: which clients may poll a display by its MAC alone (DISPLAY_KEYLESS_NETWORKS). Each
 * address is compared as 128 bits, an IPv4 one as its IPv4-mapped IPv6 address, so
 * `::ffff:10.0.0.7` is in `10.0.0.0/8`.
 */
import { parseIPv4, parseIPv6 } from "../outbound/address_guard.ts";

/** The private and loopback ranges (RFC 1918, RFC 4193, loopback): a home or office network. */
export const PRIVATE_NETWORKS =
  "127.0.0.0/8,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,::1/128,fc00::/7";

/** One range: its first address and how many leading bits an address must share with it. */
export interface Network {
  base: bigint;
  bits: number;
}

/**
 * Comma-separated CIDR ranges (a bare address is its own range), or `none` for no range at all.
 * Throws on anything else, naming the part it could not read.
 */
export function parseNetworks(text: string): Network[] {
  if (text.trim().toLowerCase() === "none") return [];
  return text.split(",").map((part) => {
    const [address, prefix, ...rest] = part.trim().split("/");
    const value = address === undefined ? null : addressBits(address);
    const v4 = parseIPv4(address ?? "") !== null;
    const max = v4 ? 32 : 128;
    const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (value === null || rest.length > 0 || !(bits >= 0 && bits <= max)) {
      throw new Error(`${JSON.stringify(part.trim())} is not an address range (CIDR)`);
    }
    const total = v4 ? bits + 96 : bits;
    return { base: value & mask(total), bits: total };
  });
}

/** Whether `address` (as a connection reports it) lies in one of `networks`. */
export function inNetworks(address: string, networks: readonly Network[]): boolean {
  const value = addressBits(address.replace(/^\[|\]$/g, ""));
  if (value === null) return false;
  return networks.some((network) => (value & mask(network.bits)) === network.base);
}

/** An IPv4 or IPv6 address as 128 bits (IPv4 mapped into `::ffff:0:0/96`); null if neither. */
function addressBits(text: string): bigint | null {
  const v4 = parseIPv4(text);
  if (v4 !== null) return 0xffffn << 32n | BigInt(v4);
  const groups = parseIPv6(text);
  if (!groups) return null;
  return groups.reduce((sum, group) => sum << 16n | BigInt(group), 0n);
}

/** The leading `bits` of 128 set. */
function mask(bits: number): bigint {
  return ((1n << BigInt(bits)) - 1n) << BigInt(128 - bits);
}
