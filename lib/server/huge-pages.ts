// Large buffers (decoded photos, a mosaic's bands) in transparent huge pages. On a virtual machine the
// first touch of each 4 kB page is slow, and drone work touches gigabytes of new memory (bench/HISTORY.md).
// glibc reads GLIBC_TUNABLES only as a process starts, so it is given to the processes the server
// starts (cluster.ts), to `npm run worker` (package.json) and to the bench's pipeline.

export const HUGE_PAGES_TUNABLE = 'glibc.malloc.hugetlb=1';

/** GLIBC_TUNABLES with malloc's transparent huge pages added; as given when it already says whether to use them. */
export function withHugePages(tunables: string | undefined): string {
  if (!tunables) return HUGE_PAGES_TUNABLE;
  return /(^|:)glibc\.malloc\.hugetlb=/.test(tunables) ? tunables : `${tunables}:${HUGE_PAGES_TUNABLE}`;
}
