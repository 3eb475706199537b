import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSessionSecret, parseConfig } from '@/lib/config';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = parseConfig({} as NodeJS.ProcessEnv);
    expect(c).toMatchObject({ SERVICE_DB: 'fields.db', SERVICE_ENV: 'production', PORT: 3000, databaseKind: 'sqlite', MAP_TILE_MAX_ZOOM: 19 });
    expect(c.dataDir).toBe(join(process.cwd(), 'data'));
  });

  it('chooses PostgreSQL when DATABASE_URL is set', () => {
    expect(parseConfig({ DATABASE_URL: 'postgresql://u@h/db' } as unknown as NodeJS.ProcessEnv).databaseKind).toBe('postgresql');
  });

  it('stops with a message naming each bad variable', () => {
    expect(() => parseConfig({ SERVICE_ENV: 'staging', PORT: 'eighty', DATABASE_URL: 'mysql://x' } as unknown as NodeJS.ProcessEnv)).toThrow(
      /SERVICE_ENV[\s\S]*DATABASE_URL[\s\S]*PORT|SERVICE_ENV[\s\S]*PORT/,
    );
    expect(() => parseConfig({ MAP_TILE_MAX_ZOOM: '30' } as unknown as NodeJS.ProcessEnv)).toThrow(/MAP_TILE_MAX_ZOOM/);
    expect(parseConfig({ MAP_TILE_MAX_ZOOM: '18' } as unknown as NodeJS.ProcessEnv).MAP_TILE_MAX_ZOOM).toBe(18);
  });

  it('generates the session key once, keeps it 0600 and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const first = loadSessionSecret(dir);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, '.session_secret')).mode & 0o777).toBe(0o600);
    expect(loadSessionSecret(dir)).toBe(first);
    expect(readFileSync(join(dir, '.session_secret'), 'utf8')).toBe(first);
    expect(loadSessionSecret(dir, 'given-secret-value-123')).toBe('given-secret-value-123');
  });
});
