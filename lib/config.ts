// Configuration from the environment, validated once; a bad value stops start-up with a clear message.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/** One base map of MAP_BASE_LAYERS; an attribution left out is OpenStreetMap's, in the page's language. */
const baseLayerSchema = z.strictObject({
  name: z.string().trim().min(1),
  url: z.string().refine((u) => ['{z}', '{x}', '{y}'].every((p) => u.includes(p)), 'must hold {z}, {x} and {y}'),
  attribution: z.string().nullable().default(null),
  maxZoom: z.number().int().min(0).max(24).default(19),
});
export type BaseLayerConfig = z.infer<typeof baseLayerSchema>;

const OSM_TILES = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';

const schema = z.object({
  SERVICE_DB: z.string().min(1).default('fields.db'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  SERVICE_ENV: z.enum(['test', 'production']).default('production'),
  SESSION_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** The base maps the maps offer, the first shown at first (mapBaseLayers): a JSON list of {name, url, attribution, maxZoom}. */
  MAP_BASE_LAYERS: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON list of {"name", "url", "attribution", "maxZoom"}, e.g. [{"name":"OSM","url":"https://tile.openstreetmap.org/{z}/{x}/{y}.png"}]' });
        return z.NEVER;
      }
    })
    .pipe(z.array(baseLayerSchema).min(1, 'must name at least one base map'))
    .optional(),
  /** The one base map's tiles, before MAP_BASE_LAYERS (still read: it makes the one base layer). */
  MAP_TILE_URL: z.string().optional(),
  /** The deepest zoom MAP_TILE_URL has tiles for (OpenStreetMap's: 19); the maps zoom further by enlarging them. */
  MAP_TILE_MAX_ZOOM: z.coerce.number().int().min(0).max(24).optional(),
  /** An upload that sends no byte for this long is stopped with 408 (a stalled client holds a connection and a file). */
  UPLOAD_IDLE_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(60),
  /** Longest time one request may take to arrive whole (Node's own default, 300 s, would end large uploads). */
  REQUEST_TIMEOUT_S: z.coerce.number().int().min(1).max(7 * 24 * 3600).default(4 * 3600),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Reverse proxies in front of the server that append to X-Forwarded-For: the caller's address is the
   * one the outermost of them saw. 0: none, the socket's peer is the caller and the header is ignored
   * (a client names any address there).
   */
  TRUSTED_PROXIES: z.coerce.number().int().min(0).max(10).default(0),
  /** Companies one address may register in an hour: each costs a password hash and rows nobody asked for. */
  REGISTRATIONS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(20),
  /** Web processes of the server (lib/server/cluster.ts); unset: one per core, at most 8. */
  WEB_CONCURRENCY: z
    .string()
    .refine((v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 64, { error: (iss) => `must be a whole number from 1 to 64, got "${String(iss.input)}"` })
    .transform(Number)
    .optional(),
  /**
   * Longest a background task may run before its thread is ended and the task fails (`task_too_long`):
   * one that never ends would hold its kind's only turn, every company's uploads behind it. A survey
   * of over 200 photos takes 10-20 minutes, a 1 GB raster is zoned in about 11 s.
   */
  DRONE_TASK_LIMIT_S: z.coerce.number().int().min(1).max(7 * 24 * 3600).default(2 * 3600),
  /** The same for zoning a raster and remaking a scan's zones. */
  ZONING_TASK_LIMIT_S: z.coerce.number().int().min(1).max(7 * 24 * 3600).default(30 * 60),
  /** Seconds between a BullMQ worker's sweeps for tasks whose job or runner was lost (lib/tasks/redis-sweep.ts). */
  WORKER_SWEEP_S: z.coerce.number().int().min(1).max(3600).default(60),
  /** Raster zonings (and zones made again) one BullMQ worker process runs at a time. */
  WORKER_RASTER_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
  /** Drone surveys one BullMQ worker process runs at a time (each takes a core and up to a few GB). */
  WORKER_DRONE_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
  /** Re-match features along the seams of every drone mosaic and keep the result with the scan (seconds more per survey). */
  DRONE_SEAM_CHECK: z.enum(['0', '1']).default('0'),
});

/** Every setting's name (docker-compose.yml's services may set only these: tests/unit/deploy.test.ts). */
export const SETTINGS = Object.keys(schema.shape);

export type Config = z.infer<typeof schema> & {
  databaseKind: 'sqlite' | 'postgresql';
  /** MAP_BASE_LAYERS, else the one layer of MAP_TILE_URL and MAP_TILE_MAX_ZOOM (OpenStreetMap by default). */
  mapBaseLayers: BaseLayerConfig[];
  dataDir: string;
  sessionSecret: string;
};

/** Empty strings count as unset, as in most deployment tools. */
function cleanEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')) as Record<
    string,
    string
  >;
}

export function parseConfig(env: NodeJS.ProcessEnv): Omit<Config, 'sessionSecret'> {
  const parsed = schema.safeParse(cleanEnv(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return { ...c, databaseKind: c.DATABASE_URL ? 'postgresql' : 'sqlite', dataDir: resolve(c.DATA_DIR), mapBaseLayers: mapBaseLayers(c) };
}

/** The base maps: MAP_BASE_LAYERS, or the one the older two settings describe; both at once is a mistake. */
function mapBaseLayers(c: z.infer<typeof schema>): BaseLayerConfig[] {
  if (c.MAP_BASE_LAYERS) {
    if (c.MAP_TILE_URL !== undefined || c.MAP_TILE_MAX_ZOOM !== undefined) {
      throw new Error('Invalid configuration:\n  MAP_BASE_LAYERS: replaces MAP_TILE_URL and MAP_TILE_MAX_ZOOM; set it alone');
    }
    return c.MAP_BASE_LAYERS;
  }
  return [{ name: 'OpenStreetMap', url: c.MAP_TILE_URL ?? OSM_TILES, attribution: null, maxZoom: c.MAP_TILE_MAX_ZOOM ?? 19 }];
}

/** The signing key: SESSION_SECRET, else a key generated once and kept in the data folder (0600). */
export function loadSessionSecret(dataDir: string, given?: string): string {
  if (given) return given;
  const file = join(dataDir, '.session_secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  try {
    writeFileSync(file, key, { mode: 0o600, flag: 'wx' });
  } catch {
    // Another process wrote it first: use theirs.
    return readFileSync(file, 'utf8').trim();
  }
  chmodSync(file, 0o600);
  return key;
}

let base: Omit<Config, 'sessionSecret'> | undefined;
let cached: Config | undefined;

const baseConfig = () => (base ??= parseConfig(process.env));

export function config(): Config {
  if (!cached) {
    const c = baseConfig();
    cached = { ...c, sessionSecret: loadSessionSecret(c.dataDir, c.SESSION_SECRET) };
  }
  return cached;
}

/**
 * DATA_DIR, absolute. Unlike config() it makes no session key in the folder: job threads and tools
 * that only resolve stored file paths (lib/uploads/data-path.ts) have no use for one.
 */
export const dataDir = () => baseConfig().dataDir;
