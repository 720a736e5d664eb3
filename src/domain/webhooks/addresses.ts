import { isIP } from 'node:net';

// Where webhooks may not go (server-side request forgery): an admin, or whoever controls an endpoint's DNS,
// must not be able to make Quotient call into its own network, the host itself or a cloud metadata service.
// Literal addresses are checked when an endpoint is added; resolved addresses on every attempt, since DNS
// can change its answer after the check (rebinding).

interface Range {
  bytes: number[];
  prefix: number;
  label: string;
}

function v4(address: string, prefix: number, label: string): Range {
  return { bytes: address.split('.').map(Number), prefix, label };
}

function v6(address: string, prefix: number, label: string): Range {
  return { bytes: ipv6Bytes(address) as number[], prefix, label };
}

const IPV4_RANGES: Range[] = [
  v4('0.0.0.0', 8, '"this network"'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'carrier-grade NAT'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link-local (cloud metadata)'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'IETF protocol assignment'),
  v4('192.0.2.0', 24, 'documentation'),
  v4('192.88.99.0', 24, '6to4 relay'),
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'benchmarking'),
  v4('198.51.100.0', 24, 'documentation'),
  v4('203.0.113.0', 24, 'documentation'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'),
];

const IPV6_RANGES: Range[] = [
  v6('::', 128, 'unspecified'),
  v6('::1', 128, 'loopback'),
  v6('64:ff9b:1::', 48, 'local NAT64'),
  v6('100::', 64, 'discard'),
  v6('2001::', 23, 'IETF protocol assignment'),
  v6('2001:db8::', 32, 'documentation'),
  v6('fc00::', 7, 'unique local'),
  v6('fe80::', 10, 'link-local'),
  v6('fec0::', 10, 'site-local'),
  v6('ff00::', 8, 'multicast'),
];

/**
 * Why an IP address must not receive webhooks (`"loopback"`, `"private"`, …), or null when it may. IPv6
 * addresses that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4 address they reach.
 */
export function forbiddenAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 4) return matchRange(address.split('.').map(Number), IPV4_RANGES);
  if (family !== 6) return 'not an IP address';
  const bytes = ipv6Bytes(address.replace(/%.*$/, ''));
  if (!bytes) return 'not an IP address';
  const embedded = embeddedIpv4(bytes);
  if (embedded) return forbiddenAddressReason(embedded);
  return matchRange(bytes, IPV6_RANGES);
}

function matchRange(bytes: number[], ranges: Range[]): string | null {
  for (const range of ranges) {
    if (inPrefix(bytes, range.bytes, range.prefix)) return range.label;
  }
  return null;
}

function inPrefix(bytes: number[], network: number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const take = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    const index = bit / 8;
    if (((bytes[index] ?? 0) & mask) !== ((network[index] ?? 0) & mask)) return false;
  }
  return true;
}

function embeddedIpv4(bytes: number[]): string | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const dotted = (from: number) => bytes.slice(from, from + 4).join('.');
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible; :: and ::1 themselves are judged as IPv6)
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return dotted(12);
  if (zeros(0, 12) && !(zeros(12, 15) && (bytes[15] ?? 0) <= 1)) return dotted(12);
  // 64:ff9b::a.b.c.d (NAT64, well-known prefix)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) {
    return dotted(12);
  }
  // 2002:aabb:ccdd::/48 (6to4)
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return dotted(2);
  return null;
}

/** The 16 bytes of an IPv6 address (with `::` and a trailing dotted IPv4 part), or null when malformed. */
function ipv6Bytes(address: string): number[] | null {
  let text = address;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const parts = text
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255)) return null;
    tail.push(...parts);
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (half: string | undefined) => (half ? half.split(':') : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const words = [...head, ...Array<string>(Math.max(missing, 0)).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const word of words) {
    if (!/^[0-9a-f]{1,4}$/i.test(word)) return null;
    const value = Number.parseInt(word, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

export type EndpointUrlCheck = { url: string } | { error: string };

/**
 * Checks a webhook URL when it is registered: https (plain http only where private addresses are allowed, for
 * local development), and no literal address or `localhost` name that points inside. Names are resolved and
 * checked again on every attempt.
 */
export function checkEndpointUrl(raw: string, options: { allowPrivate: boolean }): EndpointUrlCheck {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { error: `${JSON.stringify(raw)} is not a URL; give the full address, e.g. https://example.com/webhooks` };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowPrivate)) {
    return {
      error: `webhook URLs must use https, got ${url.protocol.replace(/:$/, '')} (plain http is accepted only with QUOTIENT_WEBHOOKS_ALLOW_PRIVATE=true, for local development)`,
    };
  }
  if (url.href.length > 2048) return { error: 'the URL is longer than 2048 characters' };
  if (!options.allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const reason = isIP(host) ? forbiddenAddressReason(host) : isLocalName(host) ? 'loopback' : null;
    if (reason) {
      return {
        error: `${host} is a ${reason} address: webhooks go to public addresses only (QUOTIENT_WEBHOOKS_ALLOW_PRIVATE=true lifts this for local development)`,
      };
    }
  }
  return { url: url.href };
}

function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
