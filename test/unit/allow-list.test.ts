import { describe, expect, it } from 'vitest';
import { AllowList } from '../../agent/net/allow-list.js';

describe('AllowList', () => {
  it('matches single addresses and CIDR ranges of both families', () => {
    const list = new AllowList(['192.168.1.7', '10.0.0.0/8', 'fd00:1::/32']);
    expect(list.allows('192.168.1.7')).toBe(true);
    expect(list.allows('192.168.1.8')).toBe(false);
    expect(list.allows('10.200.3.4')).toBe(true);
    expect(list.allows('11.0.0.1')).toBe(false);
    expect(list.allows('fd00:1::5')).toBe(true);
    expect(list.allows('fd00:2::5')).toBe(false);
  });

  it('treats IPv4-mapped IPv6 addresses as their IPv4 address', () => {
    const list = new AllowList(['127.0.0.1']);
    expect(list.allows('::ffff:127.0.0.1')).toBe(true);
    expect(list.allows('::FFFF:127.0.0.2')).toBe(false);
  });

  it('refuses everything when empty, and unknown or missing addresses always', () => {
    expect(new AllowList([]).allows('127.0.0.1')).toBe(false);
    expect(new AllowList(['1.0.0.0/8', '2001:db8::/32']).allows(undefined)).toBe(false);
    expect(new AllowList(['1.0.0.0/8', '2001:db8::/32']).allows('not-an-ip')).toBe(false);
  });

  it('keeps the old list when a replacement holds an invalid entry', () => {
    const list = new AllowList(['127.0.0.1']);
    expect(() => list.replace(['10.0.0.1', 'bogus'])).toThrow(/bogus/);
    expect(list.current).toEqual(['127.0.0.1']);
    expect(list.allows('10.0.0.1')).toBe(false);
  });
});
