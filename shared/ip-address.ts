/**
 * Pure parsing of IP addresses and CIDR ranges for the allow-list, shared by the agent
 * (validation of settings) and the console (inline validation while typing). No Node APIs.
 */

export type IpFamily = 'ipv4' | 'ipv6';

export interface AllowListRange {
  /** The entry as the operator wrote it, trimmed. */
  text: string;
  family: IpFamily;
  /** The network address, normalised (IPv6 in lower case). */
  address: string;
  /** Prefix length; 32 or 128 for a single address. */
  prefix: number;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

const IPV4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => IPV4_PART.test(p));
}

/** RFC 4291 §2.2 text forms, including `::` compression and a trailing dotted IPv4 part. */
export function isIpv6(text: string): boolean {
  if (text.length === 0 || text.length > 45) return false;
  let groups = text;
  let tailGroups = 0;
  const lastColon = text.lastIndexOf(':');
  if (lastColon >= 0 && text.slice(lastColon + 1).includes('.')) {
    if (!isIpv4(text.slice(lastColon + 1))) return false;
    groups = text.slice(0, lastColon + 1) + '0';
    tailGroups = 1; // the IPv4 part counts as two groups; '0' stands for one of them
  }
  const halves = groups.split('::');
  if (halves.length > 2) return false;
  const hex = /^[0-9a-fA-F]{1,4}$/;
  const count = (half: string): number | null => {
    if (half === '') return 0;
    const parts = half.split(':');
    return parts.every((p) => hex.test(p)) ? parts.length : null;
  };
  const counts = halves.map(count);
  if (counts.some((c) => c === null)) return false;
  const total = (counts as number[]).reduce((a, b) => a + b, 0) + tailGroups;
  return halves.length === 2 ? total <= 7 : total === 8;
}

/** The 32 bits of an IPv4 address as four octets. */
function ipv4Octets(text: string): number[] {
  return text.split('.').map(Number);
}

/** The eight 16-bit groups of a valid IPv6 address, `::` expanded and an IPv4 tail converted. */
export function ipv6Groups(text: string): number[] {
  let body = text;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = ipv4Octets(text.slice(lastColon + 1));
    tail.push((a << 8) | b, (c << 8) | d);
    body = text.slice(0, lastColon + 1);
    if (!body.endsWith('::')) body = body.slice(0, -1); // the ':' before the IPv4 part
  }
  const [head = '', rest] = body.split('::') as [string, string | undefined];
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const zeros = rest === undefined ? 0 : 8 - tail.length - left.length - right.length;
  return [...left, ...Array<number>(zeros).fill(0), ...right, ...tail];
}

/** Bits of the address as 0/1 values, most significant first. */
function addressBits(family: IpFamily, address: string): number[] {
  const words = family === 'ipv4' ? ipv4Octets(address) : ipv6Groups(address);
  const width = family === 'ipv4' ? 8 : 16;
  return words.flatMap((w) => Array.from({ length: width }, (_, i) => (w >> (width - 1 - i)) & 1));
}

function formatNetwork(family: IpFamily, bits: number[]): string {
  const width = family === 'ipv4' ? 8 : 16;
  const words: number[] = [];
  for (let i = 0; i < bits.length; i += width) words.push(bits.slice(i, i + width).reduce((a, b) => a * 2 + b, 0));
  return family === 'ipv4' ? words.join('.') : words.map((w) => w.toString(16)).join(':');
}

/**
 * The widest ranges an entry may be (docs/permissions.md "IP allow-list"): a shorter prefix is
 * almost certainly a way around the list rather than a network that needs access.
 */
export const WIDEST_PREFIX: Readonly<Record<IpFamily, number>> = { ipv4: 8, ipv6: 32 };

interface Ipv4InIpv6Range {
  text: string;
  meaning: string;
  bits: number[];
  prefix: number;
}

function ipv6Range(text: string, meaning: string): Ipv4InIpv6Range {
  const [address = '', prefix = '128'] = text.split('/');
  return { text, meaning, bits: addressBits('ipv6', address), prefix: Number(prefix) };
}

/**
 * IPv6 ranges that carry IPv4 addresses: a dual-stack listener sees IPv4 clients as IPv4-mapped
 * addresses (RFC 4291 §2.5.5.2) and Node's BlockList matches IPv4 addresses against IPv6
 * subnets that cover them, so an IPv6 range overlapping these admits IPv4 clients. Only a
 * single address (/128) is allowed inside them.
 */
const IPV4_IN_IPV6: readonly Ipv4InIpv6Range[] = [
  ipv6Range('::ffff:0:0/96', 'IPv4-mapped addresses, RFC 4291'),
  ipv6Range('::/96', 'IPv4-compatible addresses, RFC 4291'),
  ipv6Range('64:ff9b::/96', 'NAT64 addresses, RFC 6052'),
  ipv6Range('2002::/16', '6to4 addresses, RFC 3056'),
];

/** Two prefixes overlap when they agree on the bits of the shorter one. */
function overlaps(bits: number[], prefix: number, range: Ipv4InIpv6Range): boolean {
  const shared = Math.min(prefix, range.prefix);
  for (let i = 0; i < shared; i++) if (bits[i] !== range.bits[i]) return false;
  return true;
}

/**
 * Parses `10.0.0.0/8`, `192.168.1.7`, `fd00::/48` or `::1`. Refuses entries that are almost
 * certainly mistakes (docs/security.md, N10): a range with host bits set (`10.0.0.1/8`), a
 * `/0` range that would open the API to every address, IPv4-mapped IPv6 forms (IPv4 entries
 * already match IPv4 clients of a dual-stack socket), an IPv6 range overlapping the IPv6
 * forms of IPv4 addresses, and ranges wider than WIDEST_PREFIX.
 */
export function parseAllowListEntry(raw: string): ParseResult<AllowListRange> {
  const text = raw.trim();
  if (text === '') return { ok: false, error: 'empty entry' };
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const family: IpFamily | null = isIpv4(address) ? 'ipv4' : isIpv6(address) ? 'ipv6' : null;
  if (family === null) {
    return { ok: false, error: `"${address}" is not an IPv4 or IPv6 address` };
  }
  const max = family === 'ipv4' ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const bits = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) {
      return { ok: false, error: `prefix "/${bits}" must be a number from 0 to ${max}` };
    }
    prefix = Number(bits);
  }
  if (family === 'ipv6' && /^::ffff:/i.test(address) && address.includes('.')) {
    return {
      ok: false,
      error: `write IPv4 entries in IPv4 form ("${address.slice(7)}"); they match IPv4-mapped clients too`,
    };
  }
  if (prefix === 0) {
    return { ok: false, error: `"${text}" would allow every address; list the networks that need access instead` };
  }
  const bitsOfAddress = addressBits(family, address);
  if (bitsOfAddress.slice(prefix).some((b) => b === 1)) {
    const network = formatNetwork(family, [...bitsOfAddress.slice(0, prefix), ...Array<number>(max - prefix).fill(0)]);
    return {
      ok: false,
      error: `"${text}" has bits set after the /${prefix} prefix; the network is ${network}/${prefix}`,
    };
  }
  if (family === 'ipv6' && prefix < 128) {
    const overlapped = IPV4_IN_IPV6.find((range) => overlaps(bitsOfAddress, prefix, range));
    if (overlapped) {
      return {
        ok: false,
        error:
          `"${text}" overlaps ${overlapped.text} (${overlapped.meaning}), so it would admit IPv4 clients; ` +
          'write IPv4 networks in IPv4 form',
      };
    }
  }
  const widest = WIDEST_PREFIX[family];
  if (prefix < widest) {
    return {
      ok: false,
      error: `"${text}" is wider than /${widest}; list the networks that need access (/${widest} or narrower)`,
    };
  }
  return { ok: true, value: { text, family, address: address.toLowerCase(), prefix } };
}

/** The first-run allow-list: loopback only (docs/agent-api.md). */
export const DEFAULT_ALLOW_LIST: readonly string[] = ['127.0.0.1', '::1'];
