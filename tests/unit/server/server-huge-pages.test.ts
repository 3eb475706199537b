// The server's processes ask glibc for transparent huge pages (lib/server/huge-pages.ts): a process
// started with the tunable holds a large buffer in huge pages where the kernel offers them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HUGE_PAGES_TUNABLE, withHugePages } from '@/lib/server/huge-pages';

/** Kilobytes of a child Node.js process's anonymous memory in huge pages after filling a 64 MB buffer. */
function hugePagesOfChild(tunables: string | undefined): number {
  const script = "const b = Buffer.alloc(64 << 20, 1); const m = /AnonHugePages:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/smaps_rollup', 'utf8')); console.log(m ? m[1] : 0, b[7]);";
  const env = { ...process.env, GLIBC_TUNABLES: tunables ?? '' };
  return Number(execFileSync(process.execPath, ['-e', script], { env }).toString().split(' ')[0]);
}

describe('huge pages for the server processes', () => {
  it('are added to GLIBC_TUNABLES, which otherwise stays as given', () => {
    expect(withHugePages(undefined)).toBe(HUGE_PAGES_TUNABLE);
    expect(withHugePages('')).toBe(HUGE_PAGES_TUNABLE);
    expect(withHugePages('glibc.malloc.arena_max=2')).toBe(`glibc.malloc.arena_max=2:${HUGE_PAGES_TUNABLE}`);
    expect(withHugePages('glibc.malloc.hugetlb=0')).toBe('glibc.malloc.hugetlb=0');
    expect(withHugePages('glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0')).toBe('glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0');
  });

  it('hold a large buffer in huge pages where the kernel offers them on request, and not without the tunable', (ctx) => {
    const mode = readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8');
    if (!mode.includes('[madvise]')) {
      console.log(`huge pages test skipped: transparent huge pages are "${mode.trim()}" here, not offered on request`);
      ctx.skip();
    }
    expect(hugePagesOfChild(withHugePages(undefined))).toBeGreaterThanOrEqual(16 * 1024);
    expect(hugePagesOfChild(undefined)).toBe(0);
  });
});
