// Address classes the outbound guard refuses (docs/interface.md C), one row per range with its source.
// IPv6 forms that embed IPv4 (mapped, compatible, NAT64, 6to4, Teredo) are refused as whole
// ranges, which is stricter than checking the embedded IPv4 address. (64:ff9b::/96 lies inside
// ::/8 already — its first byte is 0 — so ::/8 is the row that matches it; the NAT64 rows stay
// to document the intent.)
import { isIPv4, isIPv6 } from "node:net";

type Range = { cidr: string; why: string };

export const BLOCKED_V4: Range[] = [
  { cidr: "0.0.0.0/8", why: "this network (RFC 1122)" },
  { cidr: "10.0.0.0/8", why: "private (RFC 1918)" },
  { cidr: "100.64.0.0/10", why: "carrier-grade NAT (RFC 6598)" },
  { cidr: "127.0.0.0/8", why: "loopback (RFC 1122)" },
  { cidr: "169.254.0.0/16", why: "link-local, cloud metadata (RFC 3927)" },
  { cidr: "172.16.0.0/12", why: "private (RFC 1918)" },
  { cidr: "192.0.0.0/24", why: "IETF protocol assignments (RFC 6890)" },
  { cidr: "192.0.2.0/24", why: "documentation (RFC 5737)" },
  { cidr: "192.88.99.0/24", why: "6to4 relay anycast (RFC 7526)" },
  { cidr: "192.168.0.0/16", why: "private (RFC 1918)" },
  { cidr: "198.18.0.0/15", why: "benchmarking (RFC 2544)" },
  { cidr: "198.51.100.0/24", why: "documentation (RFC 5737)" },
  { cidr: "203.0.113.0/24", why: "documentation (RFC 5737)" },
  { cidr: "224.0.0.0/4", why: "multicast (RFC 5771)" },
  { cidr: "240.0.0.0/4", why: "reserved (RFC 1112)" },
  { cidr: "255.255.255.255/32", why: "broadcast (RFC 919)" },
  { cidr: "168.63.129.16/32", why: "Azure wire server / metadata" },
];

export const BLOCKED_V6: Range[] = [
  { cidr: "::/8", why: "unspecified, loopback, IPv4-compatible and IPv4-mapped (RFC 4291)" },
  { cidr: "64:ff9b::/96", why: "NAT64, embeds IPv4 (RFC 6052)" },
  { cidr: "64:ff9b:1::/48", why: "local-use NAT64 (RFC 8215)" },
  { cidr: "100::/64", why: "discard-only (RFC 6666)" },
  { cidr: "2001::/32", why: "Teredo, embeds IPv4 (RFC 4380)" },
  { cidr: "2001:db8::/32", why: "documentation (RFC 3849)" },
  { cidr: "2002::/16", why: "6to4, embeds IPv4 (RFC 3056)" },
  { cidr: "3fff::/20", why: "documentation (RFC 9637)" },
  { cidr: "fc00::/7", why: "unique local (RFC 4193)" },
  { cidr: "fe80::/10", why: "link-local (RFC 4291)" },
  { cidr: "fec0::/10", why: "site-local, deprecated (RFC 3879)" },
  { cidr: "ff00::/8", why: "multicast (RFC 4291)" },
];

function v4ToBigInt(ip: string): bigint {
  return ip.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

/** Expands any IPv6 text form (with `::`, or a dotted IPv4 tail) to a 128-bit integer. */
function v6ToBigInt(ip: string): bigint {
  let text = ip.toLowerCase().split("%")[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = v4ToBigInt(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g || "0", 16)), 0n);
}

function inRange(value: bigint, bits: number, cidr: string, parse: (s: string) => bigint): boolean {
  const [base, len] = cidr.split("/") as [string, string];
  const shift = BigInt(bits - Number(len));
  return value >> shift === parse(base) >> shift;
}

export const LOOPBACK_V4 = "127.0.0.0/8";

/** A range parsed once (the guard checks every answer of every request against all of them). */
interface Parsed {
  shift: bigint;
  prefix: bigint;
  why: string;
}
const parse = (ranges: Range[], bits: number, toBigInt: (s: string) => bigint): Parsed[] =>
  ranges.map(({ cidr, why }) => {
    const [base, len] = cidr.split("/") as [string, string];
    const shift = BigInt(bits - Number(len));
    return { shift, prefix: toBigInt(base) >> shift, why };
  });
const PARSED_V4 = parse(BLOCKED_V4, 32, v4ToBigInt);
const PARSED_V6 = parse(BLOCKED_V6, 128, v6ToBigInt);
const LOOPBACK_V4_PREFIX = v4ToBigInt("127.0.0.0") >> 24n;

/** Why an address must not be connected to, or null. `allowLoopback` (development) lets 127/8 and ::1 through. */
export function blockedAddressReason(ip: string, options: { allowLoopback: boolean }): string | null {
  if (isIPv4(ip)) {
    const n = v4ToBigInt(ip);
    if (options.allowLoopback && n >> 24n === LOOPBACK_V4_PREFIX) return null;
    const hit = PARSED_V4.find((r) => n >> r.shift === r.prefix);
    return hit ? `${ip} is ${hit.why}` : null;
  }
  if (isIPv6(ip)) {
    const n = v6ToBigInt(ip);
    if (options.allowLoopback && n === 1n) return null;
    const hit = PARSED_V6.find((r) => n >> r.shift === r.prefix);
    return hit ? `${ip} is ${hit.why}` : null;
  }
  return `${ip} is not an IP address`;
}

/** Is this a loopback address (127/8 or ::1)? */
export function isLoopbackAddress(ip: string): boolean {
  if (isIPv4(ip)) return inRange(v4ToBigInt(ip), 32, LOOPBACK_V4, v4ToBigInt);
  return isIPv6(ip) && v6ToBigInt(ip) === 1n;
}
