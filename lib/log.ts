// Structured logs (pino, JSON lines on stdout). Every request gets a child logger carrying its id;
// every line names its process, one of the server's several (lib/server/cluster.ts).
import pino from 'pino';

export const log = pino({
  level: process.env.LOG_LEVEL ?? (process.env.SERVICE_ENV === 'test' ? 'warn' : 'info'),
  base: { service: 'fieldmap', pid: process.pid },
  redact: ['req.headers.cookie', 'req.headers.authorization', '*.password', '*.new_password'],
});

export type Logger = pino.Logger;
