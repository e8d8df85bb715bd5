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

/** Parses `10.0.0.0/8`, `192.168.1.7`, `fd00::/8` or `::1`. */
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
  return { ok: true, value: { text, family, address: address.toLowerCase(), prefix } };
}

/** The first-run allow-list: loopback only (DESIGN.md §4). */
export const DEFAULT_ALLOW_LIST: readonly string[] = ['127.0.0.1', '::1'];
