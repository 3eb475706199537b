// glibc's malloc asked for transparent huge pages on its large blocks (glibc.malloc.hugetlb=1, glibc
// 2.35 and later; older ones and kernels with THP off ignore it). A mosaic fills about a gigabyte of
// fresh buffers (decoded photos, shared rows), and at 4 KB a page the faults cost it about a tenth of
// its time (bench/HISTORY.md). glibc reads the setting as a process starts, so it is given to the
// processes the server starts (and through them to GDAL's tools); `npm run worker` sets the same.

/** GLIBC_TUNABLES for a process started from this environment: the operator's own when set, else huge pages. */
export const glibcTunables = (env: NodeJS.ProcessEnv): string => env.GLIBC_TUNABLES || 'glibc.malloc.hugetlb=1';
