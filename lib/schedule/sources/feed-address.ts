import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

/**
 * Where a feed address leads, for the redirect rule: a feed configured at a
 * public address is never redirected inside (loopback, a private network,
 * link-local, CGNAT, unspecified, a cloud metadata service), where a feed
 * server gone bad could make the runtime read what only the runtime's host
 * can reach.
 */

/** The kind of internal address ("a loopback address"…), or undefined for a public one. */
export type AddressKind = string | undefined;

/** The kind of where a host name (or address literal) leads: every address it resolves to counts. */
export type AddressCheck = (hostname: string) => Promise<AddressKind>;

const LOOPBACK = 'a loopback address';
const PRIVATE = 'a private address';
const LINK_LOCAL = 'a link-local address';
const SHARED = 'a shared (CGNAT) address';
const UNSPECIFIED = 'an unspecified address';
const METADATA = 'a cloud metadata address';

/** Names that lead inside whatever DNS says. */
const INTERNAL_NAMES = new Map<string, string>([
  ['localhost', LOOPBACK],
  ['metadata.google.internal', METADATA],
]);

function ipv4(address: string): number[] | undefined {
  const parts = address.split('.').map(Number);
  return parts.length === 4 && parts.every((p) => Number.isInteger(p) && p >= 0 && p <= 255) ? parts : undefined;
}

function ipv4Kind([a, b]: number[], address: string): AddressKind {
  if (address === '169.254.169.254') return METADATA;
  if (a === 127) return LOOPBACK;
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return PRIVATE;
  if (a === 169 && b === 254) return LINK_LOCAL;
  if (a === 100 && b >= 64 && b <= 127) return SHARED;
  if (a === 0) return UNSPECIFIED;
  return undefined;
}

/** The 8 groups of an IPv6 address, or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  // an embedded IPv4 tail (::ffff:127.0.0.1) as two groups
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (tail) {
    const v4 = ipv4(tail);
    if (!v4) return undefined;
    text = `${text.slice(0, -tail.length)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const fill = text.includes('::') ? 8 - left.length - right.length : 0;
  const groups = [...left, ...Array(fill).fill('0'), ...right].map((g) => Number.parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

function ipv6Kind(address: string): AddressKind {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) lead to their IPv4 address
  if ((zeros(5) && g[5] === 0xffff) || (zeros(6) && (g[6] !== 0 || g[7] > 1)) || (g[0] === 0x64 && g[1] === 0xff9b)) {
    const v4 = [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff];
    return ipv4Kind(v4, v4.join('.'));
  }
  if (zeros(7) && g[7] === 1) return LOOPBACK;
  if (zeros(8)) return UNSPECIFIED;
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) {
    return METADATA;
  }
  if ((g[0] & 0xfe00) === 0xfc00) return PRIVATE;
  if ((g[0] & 0xffc0) === 0xfe80) return LINK_LOCAL;
  return undefined;
}

/** The kind of an address literal (IPv4 or IPv6), undefined for a public one or for a name. */
export function addressKind(address: string): AddressKind {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) {
    const v4 = ipv4(bare);
    return v4 ? ipv4Kind(v4, bare) : undefined;
  }
  if (family === 6) return ipv6Kind(bare);
  return undefined;
}

/** The kind of a name without asking DNS: localhost and its subdomains, the metadata service's name, a literal. */
export function nameKind(hostname: string): AddressKind {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (INTERNAL_NAMES.has(name)) return INTERNAL_NAMES.get(name);
  if (name.endsWith('.localhost')) return LOOPBACK;
  return addressKind(name);
}

function lookupAll(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );
}

/**
 * Where a host leads: its name or literal, else every address DNS gives for
 * it (one internal address among public ones makes it internal). A name
 * that does not resolve counts as public: its fetch fails on its own.
 */
export async function resolveAddressKind(
  hostname: string,
  lookup: (hostname: string) => Promise<LookupAddress[]> = lookupAll,
): Promise<AddressKind> {
  const byName = nameKind(hostname);
  if (byName || isIP(hostname.replace(/^\[|\]$/g, '')) !== 0) return byName;
  const addresses = await lookup(hostname).catch(() => []);
  for (const { address } of addresses) {
    const kind = addressKind(address);
    if (kind) return kind;
  }
  return undefined;
}

/** The error a connection gets when its name resolves inside (see publicOnlyLookup). */
export const INTERNAL_ADDRESS_CODE = 'ERR_FEED_INTERNAL_ADDRESS';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect that refuses a name resolving to any internal
 * address: the agent of a public feed connects only to public addresses,
 * whatever DNS answers between the redirect check and the connection.
 */
export function publicOnlyLookup(
  hostname: string,
  options: { all?: boolean; family?: number },
  callback: LookupCallback,
) {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, []);
      return;
    }
    const inside = addresses.map((a) => addressKind(a.address)).find((k) => k !== undefined);
    if (inside || nameKind(hostname)) {
      const refused: NodeJS.ErrnoException = new Error(`the feed server's name resolves to ${inside ?? LOOPBACK}`);
      refused.code = INTERNAL_ADDRESS_CODE;
      callback(refused, []);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  });
}
