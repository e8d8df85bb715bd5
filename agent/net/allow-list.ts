/**
 * The IP allow-list of the agent and audit APIs, checked on the raw socket address when a
 * connection is accepted, before any TLS byte (docs/security.md). Never a forwarded header.
 * Replaced as a whole when the settings change, so a check never sees half an update.
 */
import net from 'node:net';
import { parseAllowListEntry } from '../../shared/ip-address.js';

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

export class AllowList {
  private list = new net.BlockList();
  private entries: readonly string[] = [];

  constructor(entries: readonly string[]) {
    this.replace(entries);
  }

  /** Swaps in a new set of entries; throws on an invalid one and keeps the old list then. */
  replace(entries: readonly string[]): void {
    const next = new net.BlockList();
    for (const entry of entries) {
      const parsed = parseAllowListEntry(entry);
      if (!parsed.ok) throw new Error(`allow-list entry "${entry}": ${parsed.error}`);
      const { address, prefix, family } = parsed.value;
      const max = family === 'ipv4' ? 32 : 128;
      if (prefix === max) next.addAddress(address, family);
      else next.addSubnet(address, prefix, family);
    }
    this.list = next;
    this.entries = [...entries];
  }

  get current(): readonly string[] {
    return this.entries;
  }

  /**
   * True when the remote address may connect. IPv4 clients of a dual-stack socket arrive as
   * `::ffff:a.b.c.d`; they match IPv4 entries as well as IPv6 ones (deps probe: BlockList's
   * default 'ipv4' type does not match the mapped form).
   */
  allows(remoteAddress: string | undefined): boolean {
    if (!remoteAddress) return false;
    const family = net.isIP(remoteAddress);
    if (family === 4) return this.list.check(remoteAddress, 'ipv4');
    if (family !== 6) return false;
    const mapped = IPV4_MAPPED.exec(remoteAddress);
    if (mapped && this.list.check(mapped[1]!, 'ipv4')) return true;
    return this.list.check(remoteAddress, 'ipv6');
  }
}
