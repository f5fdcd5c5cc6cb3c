/**
 * Which network addresses a harvest may connect to. Sources are named by whoever holds the
 * write role (or a CSW-T Harvest), so without a policy Cairn would fetch whatever they point
 * at: its own loopback services, the cloud metadata endpoint, the private network. Every
 * address that is not public unicast is refused unless the configured allow-list
 * (HARVEST_ALLOWED_ADDRESSES) names it, with its port: an entry `127.0.0.1:8123` opens that one
 * port, `127.0.0.1:*` every port, and a bare `127.0.0.1` only the web's default ports (80 and
 * 443), so naming an internal catalogue's address does not open the search engine, Redis or the
 * identity provider that listen on other ports of the same host. Public addresses are reachable
 * on every port. IPv6 addresses that carry an IPv4 address (mapped, compatible, NAT64, 6to4)
 * are judged by that IPv4 address.
 */
import { BlockList, isIP } from 'node:net';

/** The non-public IPv4 ranges (IANA special-purpose registry), each with what it is. */
const SPECIAL_IPV4: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignment'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** The non-public IPv6 ranges, once the IPv4-carrying forms are taken out. */
const SPECIAL_IPV6: readonly [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

function rangeList(ranges: readonly [string, number, string][], family: 'ipv4' | 'ipv6') {
  return ranges.map(([network, prefix, kind]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, kind };
  });
}

const IPV4_RANGES = rangeList(SPECIAL_IPV4, 'ipv4');
const IPV6_RANGES = rangeList(SPECIAL_IPV6, 'ipv6');

/** The address without its IPv6 zone (`fe80::1%eth0` → `fe80::1`). */
function withoutZone(address: string): string {
  const zone = address.indexOf('%');
  return zone === -1 ? address : address.slice(0, zone);
}

/** The sixteen bytes of an IPv6 address (`isIP(address) === 6` assumed). */
function ipv6Bytes(address: string): number[] {
  let text = withoutZone(address).toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted !== undefined) {
    // Four parts, by the pattern.
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [
    ...headGroups,
    ...Array<string>(tail === undefined ? 0 : missing).fill('0'),
    ...tailGroups,
  ];
  return groups.flatMap((group) => {
    const value = parseInt(group || '0', 16);
    return [value >> 8, value & 0xff];
  });
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  const zero = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const quad = (from: number) => bytes.slice(from, from + 4).join('.');
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated; not :: and ::1 themselves).
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return quad(12);
  if (zero(0, 12) && !zero(12, 14)) return quad(12);
  // 64:ff9b::a.b.c.d (well-known NAT64 prefix).
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12))
    return quad(12);
  // 2002:aabb:ccdd::/48 (6to4).
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return quad(2);
  return undefined;
}

/**
 * What kind of non-public address this is ("loopback", "private", "link-local", ...), or
 * undefined for a public unicast address. Not an IP address at all: "not an IP address".
 */
export function classifyAddress(address: string): string | undefined {
  const family = isIP(withoutZone(address));
  if (family === 4) return IPV4_RANGES.find((range) => range.list.check(address, 'ipv4'))?.kind;
  if (family !== 6) return 'not an IP address';
  const carried = embeddedIpv4(address);
  if (carried !== undefined) return classifyAddress(carried);
  const plain = withoutZone(address);
  return IPV6_RANGES.find((range) => range.list.check(plain, 'ipv6'))?.kind;
}

/** The ports a bare allow-list entry (no port named) opens: http and https defaults. */
export const DEFAULT_ALLOWED_PORTS: readonly number[] = [80, 443];

/** One parsed allow-list entry; `ports` undefined means every port (`:*`). */
export interface AllowedEntry {
  network: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
  ports: readonly number[] | undefined;
}

/** Splits `addr`, `addr:port`, `addr:*`, `[v6]`, `[v6]:port` (each address maybe `/prefix`). */
function splitPort(entry: string): { address: string; port: string | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  const inBrackets = bracketed?.[1];
  if (bracketed && inBrackets !== undefined) return { address: inBrackets, port: bracketed[2] };
  // More than one colon without brackets: a bare IPv6 address or range (no port).
  const colons = entry.split(':').length - 1;
  if (colons !== 1) return { address: entry, port: undefined };
  const colon = entry.indexOf(':');
  return { address: entry.slice(0, colon), port: entry.slice(colon + 1) };
}

/**
 * Parses one allow-list entry (an address or a CIDR range, with an optional `:port` or `:*`;
 * IPv6 in brackets when a port follows); throws a message when invalid.
 */
export function parseAllowedEntry(text: string): AllowedEntry {
  const entry = text.trim();
  const { address, port } = splitPort(entry);
  const [network, prefixText, extra] = address.split('/');
  const version = isIP(network ?? '');
  if (network === undefined || version === 0 || extra !== undefined)
    throw new Error(`"${entry}" is not an IP address or a CIDR range (with an optional :port)`);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max)
    throw new Error(`"${entry}": the prefix length must be 0-${max}`);
  let ports: readonly number[] | undefined = DEFAULT_ALLOWED_PORTS;
  if (port === '*') ports = undefined;
  else if (port !== undefined) {
    const number = Number(port);
    if (!/^\d{1,5}$/.test(port) || number < 1 || number > 65535)
      throw new Error(`"${entry}": the port must be 1-65535 or *`);
    ports = [number];
  }
  return { network, prefix, family: version === 4 ? 'ipv4' : 'ipv6', ports };
}

/** Decides, for each resolved address and port, whether a harvest may connect to it. */
export class AddressPolicy {
  private readonly entries: { list: BlockList; ports: readonly number[] | undefined }[];

  /** `allowedEntries`: addresses or CIDR ranges (with ports) reachable although not public. */
  constructor(readonly allowedEntries: readonly string[] = []) {
    this.entries = allowedEntries.map((text) => {
      const { network, prefix, family, ports } = parseAllowedEntry(text);
      const list = new BlockList();
      list.addSubnet(network, prefix, family);
      return { list, ports };
    });
  }

  /**
   * Why the address is refused on this port ("loopback", "loopback; port 9200 is not allowed
   * for it", ...), or undefined when it may be used.
   */
  refusal(address: string, port: number): string | undefined {
    const kind = classifyAddress(address);
    if (kind === undefined) return undefined;
    const matching = this.matching(address);
    if (matching.length === 0) return kind;
    if (matching.some((entry) => entry.ports === undefined || entry.ports.includes(port)))
      return undefined;
    return `${kind}; port ${port} is not allowed for it`;
  }

  /** The allow-list entries whose range holds the address (or the IPv4 address it carries). */
  private matching(address: string) {
    const plain = withoutZone(address);
    const family = isIP(plain);
    if (family === 0) return [];
    const carried = family === 6 ? embeddedIpv4(plain) : undefined;
    return this.entries.filter(
      ({ list }) =>
        list.check(plain, family === 4 ? 'ipv4' : 'ipv6') ||
        (carried !== undefined && list.check(carried, 'ipv4')),
    );
  }
}
