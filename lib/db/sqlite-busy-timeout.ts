// @libsql/client opens a new SQLite connection after every interactive transaction and never passes
// a busy timeout, so two connections of one process (a transaction and a plain write) collide at once
// with "database is locked". Every connection the libsql binding opens here waits up to 10 s instead.
// Imported before the driver adapter, so that the client loads the patched class.
import { createRequire } from 'node:module';

const nodeRequire = createRequire(import.meta.url);
const id = nodeRequire.resolve('libsql');
type DatabaseClass = new (path: string, opts?: Record<string, unknown>) => object;
const Original = nodeRequire('libsql') as DatabaseClass & { __busyTimeout?: boolean };

if (!Original.__busyTimeout) {
  class WithBusyTimeout extends Original {
    constructor(path: string, opts: Record<string, unknown> = {}) {
      super(path, { timeout: 10_000, ...opts });
    }
  }
  Object.assign(WithBusyTimeout, Original, { __busyTimeout: true });
  nodeRequire.cache[id]!.exports = WithBusyTimeout;
}
