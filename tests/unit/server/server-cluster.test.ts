import { describe, expect, it } from 'vitest';
import { type Windows, countHit } from '@/lib/http/rate-limit';
import { parseConfig } from '@/lib/config';
import { securityHeaders } from '@/lib/http/security-headers';
import { parseServeArgs, webConcurrency } from '@/lib/server/cluster';

describe('web processes', () => {
  it('are one per core by default, at most 8, and WEB_CONCURRENCY chooses otherwise', () => {
    const configured = (value: string) => parseConfig({ WEB_CONCURRENCY: value } as unknown as NodeJS.ProcessEnv).WEB_CONCURRENCY;
    expect(webConcurrency(undefined, 2)).toBe(2);
    expect(webConcurrency(configured(''), 1)).toBe(1);
    expect(webConcurrency(undefined, 64)).toBe(8);
    expect(webConcurrency(configured('3'), 2)).toBe(3);
    expect(webConcurrency(configured('1'), 16)).toBe(1);
  });

  it('refuse a WEB_CONCURRENCY that is not a whole number from 1 to 64, naming it', () => {
    for (const bad of ['0', '-1', '2.5', 'two', '65']) {
      expect(() => parseConfig({ WEB_CONCURRENCY: bad } as unknown as NodeJS.ProcessEnv)).toThrow(/WEB_CONCURRENCY: must be a whole number from 1 to 64/);
    }
  });
});

describe('rate limits counted in memory', () => {
  it('open a window with its first request and count within it, per key', () => {
    const windows: Windows = new Map();
    const t0 = 1_000_000;
    expect(countHit(windows, 'a', 60, t0)).toEqual({ count: 1, resetSeconds: 60 });
    expect(countHit(windows, 'a', 60, t0 + 59_500)).toEqual({ count: 2, resetSeconds: 1 });
    expect(countHit(windows, 'b', 60, t0 + 59_500)).toEqual({ count: 1, resetSeconds: 60 });
    // The window ends 60 s after its first request, not on the clock's minute.
    expect(countHit(windows, 'a', 60, t0 + 60_000)).toEqual({ count: 1, resetSeconds: 60 });
  });

  it('forget ended windows once there are many', () => {
    const windows: Windows = new Map();
    for (let i = 0; i <= 10_000; i++) countHit(windows, `k${i}`, 1, 0);
    countHit(windows, 'late', 1, 5_000);
    expect(windows.size).toBe(1);
  });
});

describe('the server arguments', () => {
  it('are `next start`’s: port, host and keep-alive, the port from PORT or 3000 when not given', () => {
    const port = (env: Record<string, string>) => parseConfig(env as unknown as NodeJS.ProcessEnv).PORT;
    expect(parseServeArgs(['start', '-p', '3100', '-H', '127.0.0.1', '--keepAliveTimeout', '65000'], port({}))).toEqual({ port: 3100, hostname: '127.0.0.1', keepAliveTimeoutMs: 65000 });
    expect(parseServeArgs(['--port', '0'], port({}))).toEqual({ port: 0, hostname: undefined, keepAliveTimeoutMs: 5000 });
    expect(parseServeArgs([], port({ PORT: '8080' })).port).toBe(8080);
    expect(parseServeArgs(['start'], port({})).port).toBe(3000);
  });

  it('refuse a bad port or an unknown option, naming it', () => {
    expect(() => parseServeArgs(['-p', 'http'], 3000)).toThrow(/port: must be a whole number up to 65535, got "http"/);
    expect(() => parseServeArgs(['-p', '70000'], 3000)).toThrow(/port/);
    expect(() => parseServeArgs(['--turbo'], 3000)).toThrow(/turbo/);
  });
});

describe('security headers of every answer', () => {
  const imgSrc = (...tileUrls: string[]) => securityHeaders(tileUrls).headers['Content-Security-Policy']!.split('; ').find((d) => d.startsWith('img-src'));

  it('allow map tiles from the base maps as configured at start, and nothing else from elsewhere', () => {
    expect(imgSrc(...parseConfig({} as NodeJS.ProcessEnv).mapBaseLayers.map((l) => l.url))).toBe("img-src 'self' data: blob: https://*.tile.openstreetmap.org https://tile.openstreetmap.org");
    expect(imgSrc('https://tiles.example.org:8443/{z}/{x}/{y}.png')).toBe("img-src 'self' data: blob: https://tiles.example.org:8443");
    expect(imgSrc('not a url')).toBe("img-src 'self' data: blob:");
    // Every base map's host, once; {s} stands for any subdomain.
    expect(imgSrc('https://a.example.org/{z}/{x}/{y}.png', 'https://{s}.aerial.example.com/{z}/{y}/{x}', 'https://a.example.org/b/{z}/{x}/{y}.png')).toBe(
      "img-src 'self' data: blob: https://a.example.org https://*.aerial.example.com",
    );
    const { headers, pagePolicy } = securityHeaders(['https://tiles.example.org/{z}/{x}/{y}.png']);
    expect(headers['Content-Security-Policy']).toContain("default-src 'self'");
    // Pages run scripts by a nonce drawn for each; other answers run none and need no nonce.
    expect(pagePolicy).toContain("script-src 'self' 'nonce-{nonce}' 'strict-dynamic'");
    expect(pagePolicy.replace(/script-src [^;]+/, '')).toBe(headers['Content-Security-Policy']!.replace(/script-src [^;]+/, ''));
    expect(headers['Content-Security-Policy']).toContain("script-src 'self';");
    expect(headers['Content-Security-Policy']).toContain("frame-ancestors 'none'");
    expect(headers['X-Frame-Options']).toBe('DENY');
    expect(headers['X-Content-Type-Options']).toBe('nosniff');
  });
});
