// Writes lib/geo/frame-rotations.json: the seven-parameter datum shifts of epsg-index whose
// rotations are in the coordinate-frame convention. epsg-index copies each transformation's
// parameters as EPSG states them, whatever its method, while proj4 reads TOWGS84 as position
// vector: for a coordinate-frame transformation the rotations must change sign (Slovakia's JTSK03
// was 258 m off, Romania's Stereo 70 38 m, Pulkovo 1995 5.5 m). Which method each shift belongs to
// comes from PROJ's database (Debian's proj-bin, `projinfo`), asked once here, so that the service
// needs no PROJ at run time. Run `npm run -s geo:frame-rotations` after upgrading epsg-index.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const all = JSON.parse(readFileSync(join(root, 'node_modules', 'epsg-index', 'all.json'), 'utf8')) as Record<string, { proj4?: string }>;

/** The shifts with rotations, each with one CRS that uses it. */
const shifts = new Map<string, string>();
for (const [code, e] of Object.entries(all)) {
  const t = /\+towgs84=(\S+)/.exec(e.proj4 ?? '')?.[1];
  const p = t?.split(',').map(Number);
  if (t && p && p.length === 7 && (p[3] !== 0 || p[4] !== 0 || p[5] !== 0) && !shifts.has(t)) shifts.set(t, code);
}

const projinfo = (args: string[]) => execFileSync('projinfo', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/** The geographic CRS a CRS is built on (itself when it is one). */
function baseGeographic(code: string): string {
  const json = JSON.parse(projinfo([`EPSG:${code}`, '-o', 'PROJJSON', '-q'])) as { type: string; id?: { code: number }; base_crs?: { id?: { code: number } } };
  return String(json.base_crs?.id?.code ?? json.id?.code ?? code);
}

const same = (a: number, b: number) => Math.abs(a - b) < 1e-9;
const coordinateFrame: string[] = [];
const unknown: string[] = [];
for (const [shift, code] of shifts) {
  const [x, y, z, rx, ry, rz] = shift.split(',').map(Number) as number[];
  const text = projinfo(['-s', `EPSG:${baseGeographic(code)}`, '-t', 'EPSG:4326', '-o', 'PROJ', '--spatial-test', 'intersects', '--grid-check', 'none']);
  // Each operation's pipeline, its wrapped lines joined.
  const helmerts = text.split(/Operation No\. \d+:/).map((op) => op.replace(/\s+/g, ' ')).flatMap((op) => [...op.matchAll(/\+proj=helmert((?: \+[a-z_]+=\S+)+)/g)].map((m) => m[1]!));
  const param = (h: string, name: string) => Number(new RegExp(`\\+${name}=(\\S+)`).exec(h)?.[1] ?? 0);
  const match = helmerts.find((h) => same(param(h, 'x'), x!) && same(param(h, 'y'), y!) && same(param(h, 'z'), z!) && same(param(h, 'rx'), rx!) && same(param(h, 'ry'), ry!) && same(param(h, 'rz'), rz!));
  if (!match) unknown.push(`${shift} (EPSG:${code})`);
  else if (/\+convention=coordinate_frame/.test(match)) coordinateFrame.push(shift);
}
coordinateFrame.sort();
writeFileSync(join(import.meta.dirname, 'frame-rotations.json'), `${JSON.stringify({ coordinate_frame: coordinateFrame }, null, 1)}\n`);
console.log(`${shifts.size} shifts with rotations: ${coordinateFrame.length} coordinate frame, ${shifts.size - coordinateFrame.length - unknown.length} position vector, ${unknown.length} not found in PROJ (left as they are)`);
if (unknown.length) console.log(unknown.join('\n'));
