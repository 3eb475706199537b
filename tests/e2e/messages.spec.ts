// Every message key the interface uses exists in all three languages, and the three catalogues hold
// the same keys. Runs without a browser.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROLES } from '../../lib/auth/roles';
import { CROPS } from '../../lib/drone/crops';
import { LOCALES } from '../../lib/i18n/locales';
import { INDEX_NAMES } from '../../lib/raster/bands';
import { TASK_KINDS } from '../../lib/tasks/types';
import { IMPORT_KINDS } from '../../lib/tasks/import-record';

const ROOT = join(import.meta.dirname, '..', '..');
const LANGS = ['ru', 'en', 'sk'] as const;
const catalogues = Object.fromEntries(LANGS.map((l) => [l, JSON.parse(readFileSync(join(ROOT, 'messages', `${l}.json`), 'utf8'))])) as Record<(typeof LANGS)[number], Record<string, unknown>>;

function leaves(obj: unknown, prefix = ''): string[] {
  if (typeof obj !== 'object' || obj === null) return [prefix];
  return Object.entries(obj).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}

function lookup(obj: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'api' && dir.endsWith('app') ? [] : sources(p);
    return /\.tsx?$/.test(name) ? [p] : [];
  });
}

/**
 * The keys a file asks for: each `const x = useTranslations('ns')` / `getTranslations('ns')` binds a
 * namespace (none for the root), and `x('key'` then names `ns.key`. Template keys with `${...}` are
 * expanded by the values listed next to them in the UI (statuses, roles, languages...), see DYNAMIC.
 */
function usedKeys(file: string): { key: string; dynamic: boolean }[] {
  const text = readFileSync(file, 'utf8');
  // Each binding reaches from where it is made to the next binding of the same name (each function
  // of a file makes its own `t`).
  const bindings: { name: string; ns: string; at: number }[] = [];
  for (const m of text.matchAll(/(?:const|let)\s+(\w+)\s*=\s*(?:await\s+)?(?:useTranslations|getTranslations)\(\s*(?:'([\w.]+)')?\s*\)/g)) {
    bindings.push({ name: m[1]!, ns: m[2] ?? '', at: m.index });
  }
  for (const m of text.matchAll(/\[([^\]]*)\]\s*=\s*await\s+Promise\.all\(\[([\s\S]*?)\]\)/g)) {
    const names = m[1]!.split(',').map((s) => s.trim());
    const calls = m[2]!.split(/,(?![^(]*\))/).map((s) => s.trim());
    calls.forEach((c, i) => {
      const ns = /^getTranslations\(\s*(?:'([\w.]+)')?\s*\)$/.exec(c);
      if (ns && names[i]) bindings.push({ name: names[i]!, ns: ns[1] ?? '', at: m.index });
    });
  }
  bindings.sort((a, b) => a.at - b.at);
  const keys: { key: string; dynamic: boolean }[] = [];
  bindings.forEach((b, i) => {
    const end = bindings.slice(i + 1).find((o) => o.name === b.name)?.at ?? text.length;
    const region = text.slice(b.at, end);
    for (const m of region.matchAll(new RegExp(`(?<![\\w.])${b.name}\\(\\s*(['\`])([^'\`]+)\\1`, 'g'))) {
      keys.push({ key: b.ns ? `${b.ns}.${m[2]}` : m[2]!, dynamic: m[1] === '`' });
    }
  });
  return keys;
}

/** Values that dynamic keys take. */
const DYNAMIC: Record<string, string[]> = {
  'fields.status_values.${key}': ['owned', 'leased', 'subleased'],
  'roles.${user.role}': [...ROLES],
  'roles.${u.role}': [...ROLES],
  'roles.${r}': [...ROLES],
  'roles.${chosen}': [...ROLES],
  'languages.${l}': [...LOCALES],
  'drone.crops.${c}': [...CROPS],
  'report.${k}': ['mean', 'median', 'std', 'min', 'max'],
  'uploads.methods.${m}': ['jenks', 'quantile', 'equal', 'kmeans'],
  'methods.${m}': ['jenks', 'quantile', 'equal', 'kmeans'],
  'uploads.task_status.${...}': ['pending', 'running', 'completed', 'error'],
  'field.scan_status.${...}': ['processing', 'error'],
  'field.source.${...}': ['raster', 'drone'],
  'uploads.indexes.${i}': [...INDEX_NAMES],
  'uploads.recent.kind.${...}': [...TASK_KINDS, ...IMPORT_KINDS],
};

function expand(key: string): string[] | undefined {
  if (DYNAMIC[key]) return DYNAMIC[key].map((v) => key.replace(/\$\{[^}]+\}$/, v));
  const generic = key.replace(/\$\{.*\}$/, '${...}');
  if (DYNAMIC[generic]) return DYNAMIC[generic].map((v) => key.replace(/\$\{.*\}$/, v));
  return undefined;
}

test('the three catalogues hold exactly the same keys', () => {
  const [ruKeys, enKeys, skKeys] = LANGS.map((l) => new Set(leaves(catalogues[l])));
  for (const [name, keys] of [['en', enKeys!], ['sk', skKeys!]] as const) {
    expect([...ruKeys!].filter((k) => !keys.has(k)), `in ru but not in ${name}`).toEqual([]);
    expect([...keys].filter((k) => !ruKeys!.has(k)), `in ${name} but not in ru`).toEqual([]);
  }
});

test('every key the pages and components use exists in ru, en and sk', () => {
  const files = [...sources(join(ROOT, 'app')), ...sources(join(ROOT, 'components'))];
  const used = files.flatMap((f) => usedKeys(f).map((u) => ({ ...u, file: f.slice(ROOT.length + 1) })));
  // The scan really finds the keys (a broken pattern would find none and pass).
  expect(used.length).toBeGreaterThan(200);
  const missing: string[] = [];
  const unknownDynamic: string[] = [];
  for (const u of used) {
    const keys = u.dynamic ? expand(u.key) : [u.key];
    if (!keys) {
      unknownDynamic.push(`${u.file}: ${u.key}`);
      continue;
    }
    for (const key of keys) for (const l of LANGS) if (typeof lookup(catalogues[l], key) !== 'string') missing.push(`${u.file}: ${key} (${l})`);
  }
  expect(unknownDynamic, 'dynamic keys without a list of values in DYNAMIC').toEqual([]);
  expect(missing).toEqual([]);
});
