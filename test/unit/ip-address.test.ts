import { describe, expect, it } from 'vitest';
import { ipv6Groups, isIpv4, isIpv6, parseAllowListEntry } from '../../shared/ip-address.js';

describe('allow-list entry parsing', () => {
  it.each(['127.0.0.1', '0.0.0.0', '255.255.255.255', '10.1.2.3'])('accepts IPv4 %s', (a) =>
    expect(isIpv4(a)).toBe(true),
  );
  it.each(['256.0.0.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.-1', 'a.b.c.d', ''])('rejects IPv4 %s', (a) =>
    expect(isIpv4(a)).toBe(false),
  );
  it.each(['::1', '::', 'fd00::2', '2001:db8:0:0:0:0:2:1', '::ffff:192.0.2.1', 'FE80::1', '1::'])(
    'accepts IPv6 %s',
    (a) => expect(isIpv6(a)).toBe(true),
  );
  it.each([':::', '1:2:3:4:5:6:7:8:9', '1::2::3', 'g::1', '::ffff:999.0.0.1', '12345::', '1:2:3:4:5:6:7'])(
    'rejects IPv6 %s',
    (a) => expect(isIpv6(a)).toBe(false),
  );

  it('reads CIDR ranges with their family and prefix', () => {
    expect(parseAllowListEntry(' 10.0.0.0/8 ')).toEqual({
      ok: true,
      value: { text: '10.0.0.0/8', family: 'ipv4', address: '10.0.0.0', prefix: 8 },
    });
    expect(parseAllowListEntry('FD00::/48')).toMatchObject({
      ok: true,
      value: { family: 'ipv6', address: 'fd00::', prefix: 48 },
    });
    expect(parseAllowListEntry('::1')).toMatchObject({ ok: true, value: { prefix: 128 } });
  });

  it('explains what is wrong with a bad entry', () => {
    expect(parseAllowListEntry('10.0.0.0/33')).toEqual({
      ok: false,
      error: 'prefix "/33" must be a number from 0 to 32',
    });
    expect(parseAllowListEntry('::/129')).toMatchObject({ ok: false, error: expect.stringContaining('0 to 128') });
    expect(parseAllowListEntry('example.com')).toEqual({
      ok: false,
      error: '"example.com" is not an IPv4 or IPv6 address',
    });
    expect(parseAllowListEntry('10.0.0.0/')).toMatchObject({ ok: false });
    expect(parseAllowListEntry('   ')).toEqual({ ok: false, error: 'empty entry' });
  });
});

describe('allow-list entries that are almost certainly mistakes (docs/security.md N10)', () => {
  it.each([
    ['10.0.0.1/8', 'the network is 10.0.0.0/8'],
    ['192.168.1.77/24', 'the network is 192.168.1.0/24'],
    ['fd00::1/64', 'the network is fd00:0:0:0:0:0:0:0/64'],
    ['0.0.0.0/0', 'would allow every address'],
    ['::/0', 'would allow every address'],
    ['::ffff:127.0.0.1', 'IPv4 form ("127.0.0.1")'],
    ['300.1.1.1', 'is not an IPv4 or IPv6 address'],
  ])('%s is refused: %s', (entry, message) => {
    const parsed = parseAllowListEntry(entry);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toContain(message);
  });

  it.each(['10.0.0.0/8', '192.168.1.0/24', 'fd00::/64', '::1/128', '127.0.0.1/32', '2001:db8::/32', '1.2.3.4/32'])(
    '%s is accepted',
    (entry) => expect(parseAllowListEntry(entry).ok).toBe(true),
  );

  it.each([
    ['::ffff:0:0/96', 'overlaps ::ffff:0:0/96'],
    ['::/8', 'overlaps ::ffff:0:0/96'],
    ['::/1', 'overlaps ::ffff:0:0/96'],
    ['::/96', 'overlaps ::/96'],
    ['::ffff:0:0/112', 'overlaps ::ffff:0:0/96'],
    ['64:ff9b::/96', 'overlaps 64:ff9b::/96'],
    ['2002::/16', 'overlaps 2002::/16'],
    ['2002:c000:204::/48', 'overlaps 2002::/16'],
    ['2000::/3', 'overlaps 2002::/16'],
    ['0.0.0.0/1', 'wider than /8'],
    ['128.0.0.0/1', 'wider than /8'],
    ['10.0.0.0/7', 'wider than /8'],
    ['fd00::/8', 'wider than /32'],
    ['2001::/16', 'wider than /32'],
  ])('a range that admits (nearly) every IPv4 client or is too wide, %s, is refused: %s', (entry, message) => {
    const parsed = parseAllowListEntry(entry);
    expect(parsed.ok ? '' : parsed.error).toContain(message);
  });

  it.each([
    '::1',
    '::ffff:7f00:1',
    '::ffff:7f00:1/128',
    '2002:c000:204::1',
    'fd00::/32',
    '2001:db8::/48',
    '10.0.0.0/8',
  ])('a single address inside those ranges, or a narrow enough range, %s, is accepted', (entry) =>
    expect(parseAllowListEntry(entry).ok).toBe(true),
  );

  it('expands IPv6 forms to eight groups', () => {
    expect(ipv6Groups('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('fd00::2')).toEqual([0xfd00, 0, 0, 0, 0, 0, 0, 2]);
    expect(ipv6Groups('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(ipv6Groups('::1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0, 0x0102, 0x0304]);
    expect(ipv6Groups('1:2:3:4:5:6:1.2.3.4')).toEqual([1, 2, 3, 4, 5, 6, 0x0102, 0x0304]);
    expect(ipv6Groups('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
