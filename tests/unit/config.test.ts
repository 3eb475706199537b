import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSessionSecret, parseConfig } from '@/lib/config';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = parseConfig({} as NodeJS.ProcessEnv);
    expect(c).toMatchObject({ SERVICE_DB: 'fields.db', SERVICE_ENV: 'production', PORT: 3000, databaseKind: 'sqlite' });
    expect(c.mapBaseLayers).toEqual([{ name: 'OpenStreetMap', url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', attribution: null, maxZoom: 19 }]);
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

  it('reads the base maps from MAP_BASE_LAYERS, or makes the one of the older MAP_TILE_URL and MAP_TILE_MAX_ZOOM', () => {
    const env = (e: Record<string, string>) => e as unknown as NodeJS.ProcessEnv;
    // The settings of before MAP_BASE_LAYERS still work: they make the one base map.
    expect(parseConfig(env({ MAP_TILE_URL: 'https://t.example.org/{z}/{x}/{y}.png', MAP_TILE_MAX_ZOOM: '18' })).mapBaseLayers).toEqual([
      { name: 'OpenStreetMap', url: 'https://t.example.org/{z}/{x}/{y}.png', attribution: null, maxZoom: 18 },
    ]);
    const layers = '[{"name":"Map","url":"https://t.example.org/{z}/{x}/{y}.png"},{"name":"Aerial","url":"https://a.example.org/{z}/{y}/{x}","attribution":"© Aerial","maxZoom":20}]';
    expect(parseConfig(env({ MAP_BASE_LAYERS: layers })).mapBaseLayers).toEqual([
      { name: 'Map', url: 'https://t.example.org/{z}/{x}/{y}.png', attribution: null, maxZoom: 19 },
      { name: 'Aerial', url: 'https://a.example.org/{z}/{y}/{x}', attribution: '© Aerial', maxZoom: 20 },
    ]);
    expect(() => parseConfig(env({ MAP_BASE_LAYERS: '[{name: "Map"}' }))).toThrow(/MAP_BASE_LAYERS: must be a JSON list of/);
    expect(() => parseConfig(env({ MAP_BASE_LAYERS: '[]' }))).toThrow(/MAP_BASE_LAYERS: must name at least one base map/);
    expect(() => parseConfig(env({ MAP_BASE_LAYERS: '[{"name":"Map","url":"https://t.example.org/tile.png"}]' }))).toThrow(/MAP_BASE_LAYERS\.0\.url: must hold \{z\}, \{x\} and \{y\}/);
    expect(() => parseConfig(env({ MAP_BASE_LAYERS: '[{"name":"Map","url":"https://t/{z}/{x}/{y}","maxZoom":30}]' }))).toThrow(/MAP_BASE_LAYERS\.0\.maxZoom/);
    expect(() => parseConfig(env({ MAP_BASE_LAYERS: layers, MAP_TILE_URL: 'https://t/{z}/{x}/{y}' }))).toThrow(/MAP_BASE_LAYERS: replaces MAP_TILE_URL/);
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
