import { describe, expect, it } from 'vitest';
import { addressGroup } from '@/lib/http/address-group';

describe('addressGroup', () => {
  it('counts an IPv6 host by its /64, which it may use whole', () => {
    expect(addressGroup('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('keeps an IPv4 address as it is, however written, and anything else', () => {
    expect(addressGroup('198.51.100.7')).toBe('198.51.100.7');
    expect(addressGroup('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressGroup('unknown')).toBe('unknown');
  });
});
