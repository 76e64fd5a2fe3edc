/**
 * Which addresses a webhook may be delivered to (docs/events.md#where-webhooks-may-go). A
 * subscription's URL is configured in code, but it often comes from a setting a tenant or an
 * operator typed, and the dispatcher POSTs from inside the host's network: a target on a
 * loopback, private, link-local or cloud-metadata address would let whoever sets the URL reach
 * services that are not meant to be reachable (server-side request forgery). So only public
 * addresses are allowed by default; loopback and private networks may be allowed for development,
 * the rest never. Pure functions over address text, the same on every runtime.
 */

/** What kind of address an IP is. Only `public` is allowed by default. */
export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'reserved';

/**
 * Non-public addresses a webhook target may have: for development, where the receiver runs on
 * the same machine or network. Link-local, cloud-metadata, unspecified, multicast and reserved
 * addresses are refused whatever this says.
 */
export interface WebhookTargetAllowance {
  /** Loopback: 127.0.0.0/8, ::1, `localhost`. @default false */
  loopback?: boolean;
  /** Private networks: 10/8, 172.16/12, 192.168/16, 100.64/10 (shared), fc00::/7 (unique local). @default false */
  privateNetworks?: boolean;
}

/** Cloud metadata services (AWS, GCP, Azure, OpenStack; Alibaba; Oracle; AWS over IPv6). */
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192']);
const METADATA_V6 = 'fd00:ec2:0:0:0:0:0:254';

/** The four bytes of a dotted-quad IPv4 address, or undefined. */
function ipv4Bytes(text: string): number[] | undefined {
  if (text.length > 15) return undefined;
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((byte) => byte <= 255) ? bytes : undefined;
}

/** The eight 16-bit groups of an IPv6 address (zone id and brackets dropped), or undefined. */
function ipv6Groups(raw: string): number[] | undefined {
  let text = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  text = text.split('%')[0]!.toLowerCase();
  if (text.length > 45 || !text.includes(':')) return undefined;
  // An embedded IPv4 tail (`::ffff:169.254.169.254`) stands for the last two groups.
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const v4 = ipv4Bytes(text.slice(lastColon + 1));
  if (v4 !== undefined) {
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => (/^[0-9a-f]{1,4}$/.test(group) ? Number.parseInt(group, 16) : Number.NaN));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const known = head.length + rest.length + tail.length;
  if ([...head, ...rest].some(Number.isNaN) || (halves.length === 1 ? known !== 8 : known > 7)) return undefined;
  return [...head, ...Array<number>(8 - known).fill(0), ...rest, ...tail];
}

function classifyV4([a, b, c, d]: number[]): AddressKind {
  const text = `${a}.${b}.${c}.${d}`;
  if (METADATA_V4.has(text)) return 'metadata';
  if (a === 0) return 'unspecified';
  if (a === 127) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168) || (a === 100 && b! >= 64 && b! <= 127)) return 'private';
  if (a! >= 224 && a! <= 239) return 'multicast';
  // 240/4 (and the broadcast address), IETF protocol assignments, documentation and benchmarking ranges.
  if (a! >= 240 || (a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 198 && (b === 18 || b === 19)) || (a === 198 && b === 51 && c === 100))
    return 'reserved';
  if (a === 203 && b === 0 && c === 113) return 'reserved';
  return 'public';
}

const v4Of = (high: number, low: number): number[] => [high >> 8, high & 0xff, low >> 8, low & 0xff];

function classifyV6(groups: number[]): AddressKind {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (groups.map((group) => group.toString(16)).join(':') === METADATA_V6) return 'metadata';
  const zeroHead = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroHead && g5 === 0 && g6 === 0) return g7 === 0 ? 'unspecified' : g7 === 1 ? 'loopback' : 'reserved';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): the IPv4 address is what is reached.
  if (zeroHead && (g5 === 0xffff || g5 === 0)) return classifyV4(v4Of(g6, g7));
  // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address; 6to4 (2002::/16) routes to it.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4(v4Of(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'private';
  if (g0 === 0x2002) return classifyV4(v4Of(g1, g2));
  // Teredo (2001::/32) carries the client's IPv4 address inverted in the last 32 bits.
  if (g0 === 0x2001 && g1 === 0) return classifyV4(v4Of(~g6 & 0xffff, ~g7 & 0xffff));
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0 || (g0 & 0xfe00) === 0xfc00) return 'private';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if ((g0 === 0x2001 && g1 === 0xdb8) || (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0)) return 'reserved';
  return 'public';
}

/** The kind of an IP address (IPv4 dotted quad, or IPv6 with or without brackets); undefined when `text` is not one. */
export function classifyAddress(text: string): AddressKind | undefined {
  const v4 = ipv4Bytes(text);
  if (v4 !== undefined) return classifyV4(v4);
  const v6 = ipv6Groups(text);
  return v6 === undefined ? undefined : classifyV6(v6);
}

const DESCRIPTIONS: Record<Exclude<AddressKind, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private-network address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/** Why `address` (an IP) may not be a target under `allow`; undefined when it may. */
export function addressRefusal(address: string, allow: WebhookTargetAllowance): string | undefined {
  const kind = classifyAddress(address);
  if (kind === undefined) return `${address.slice(0, 64)} is not an IP address`;
  if (kind === 'public' || (kind === 'loopback' && allow.loopback === true) || (kind === 'private' && allow.privateNetworks === true)) return undefined;
  const hint =
    kind === 'loopback' ? ' (allowTargets.loopback allows it in development)' : kind === 'private' ? ' (allowTargets.privateNetworks allows it)' : '';
  return `${address} is ${DESCRIPTIONS[kind]}${hint}`;
}

/**
 * Why the host of a target URL may not be used under `allow`, judged from its text alone: an IP
 * literal by its address (the URL parser has already turned `0x7f000001`, `2130706433` and
 * `127.1` into `127.0.0.1`), `localhost` names as loopback. Undefined for other names: their
 * addresses are checked when a delivery resolves them.
 */
export function hostRefusal(hostname: string, allow: WebhookTargetAllowance): string | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost'))
    return allow.loopback === true ? undefined : `${name} is a loopback name (allowTargets.loopback allows it in development)`;
  return classifyAddress(name) === undefined ? undefined : addressRefusal(name, allow);
}
