import { describe, expect, it } from 'vitest';
import { returnPath } from '@/lib/ui/return-path';

describe('returnPath', () => {
  it('keeps a page of this site, its query and fragment', () => {
    expect(returnPath('/fields?q=north')).toBe('/fields?q=north');
    expect(returnPath('/fields/12#scan')).toBe('/fields/12#scan');
    expect(returnPath('/fields/%D0%BF%D0%BE%D0%BB%D0%B5')).toBe('/fields/%D0%BF%D0%BE%D0%BB%D0%B5');
  });

  it('leaves out the _rsc key of a Next.js client-side navigation, and nothing else', () => {
    expect(returnPath('/fields?_rsc=1x9ab')).toBe('/fields');
    expect(returnPath('/fields?q=north&_rsc=1x9ab&page=2')).toBe('/fields?q=north&page=2');
    expect(returnPath('/fields/12?_rsc=abc#scan')).toBe('/fields/12#scan');
    expect(returnPath('/fields?q=a%20b&sort=area')).toBe('/fields?q=a%20b&sort=area');
  });

  it('refuses another site, however the address is dressed', () => {
    for (const path of [
      '//evil.example/x',
      '/\\evil.example',
      '/\t/evil.example', // a browser drops the tab: //evil.example
      '/\n/evil.example',
      '/\r\n/evil.example',
      '/ /evil.example',
      'https://evil.example/',
      'evil.example',
      '/\u0000/evil.example',
      // Dot segments resolved: each is //evil.example once parsed.
      '/.//evil.example',
      '/a/..//evil.example',
      '/%2e//evil.example',
    ]) {
      expect(returnPath(path), JSON.stringify(path)).toBeUndefined();
    }
  });

  it('refuses the sign-in pages themselves and Next.js files, and nothing at all', () => {
    for (const path of ['/login', '/login?next=/map', '/register', '/_next/static/x.js', '', null, undefined]) expect(returnPath(path)).toBeUndefined();
    // The parser's reading is what is checked: a dot segment does not sneak the sign-in page in.
    expect(returnPath('/map/../login')).toBeUndefined();
  });
});
