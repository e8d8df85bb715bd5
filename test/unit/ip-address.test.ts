import { describe, expect, it } from 'vitest';
import { isIpv4, isIpv6, parseAllowListEntry } from '../../shared/ip-address.js';

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
    expect(parseAllowListEntry('FD00::/8')).toMatchObject({
      ok: true,
      value: { family: 'ipv6', address: 'fd00::', prefix: 8 },
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
