// Every route handler in app/ must be in the permission table, and every table entry must exist.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '@/lib/auth/permissions';

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return routeFiles(p);
    return name === 'route.ts' ? [p] : [];
  });
}

/** `GET /api/fields/{id}` for each method a route file exports (the JSON 404 catch-all excepted). */
export function appRoutes(): string[] {
  const appDir = join(process.cwd(), 'app');
  return routeFiles(appDir).flatMap((file) => {
    const path = '/' + relative(appDir, file).replace(/\/?route\.ts$/, '').replace(/\[(\w+)\]/g, '{$1}');
    if (path.includes('[...')) return [];
    const src = readFileSync(file, 'utf8');
    return [...src.matchAll(/export const (GET|POST|PUT|PATCH|DELETE) = route\('([A-Z]+) ([^']+)'/g)].map((m) => {
      expect(`${m[2]} ${m[3]}`, `${file} uses the key of another path`).toBe(`${m[1]} ${path}`);
      return `${m[1]} ${path}`;
    });
  });
}

describe('permission table', () => {
  it('lists every route of the app, and nothing else', () => {
    const inApp = appRoutes().sort();
    expect(inApp.length).toBeGreaterThan(5);
    expect(inApp).toEqual(Object.keys(ROUTES).sort());
  });

  it('every route file exports its handlers through route()', () => {
    const appDir = join(process.cwd(), 'app');
    for (const file of routeFiles(appDir)) {
      if (file.includes('[...')) continue;
      const src = readFileSync(file, 'utf8');
      const exported = [...src.matchAll(/export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE)\b/g)].length;
      const wrapped = [...src.matchAll(/export const (GET|POST|PUT|PATCH|DELETE) = route\(/g)].length;
      expect(wrapped, file).toBe(exported);
    }
  });
});
