// What the server can do on this machine: the programs outside Node it calls at run time, looked up on
// PATH once per process. A feature whose program is missing is refused at once (503 naming the Debian
// package), never after minutes of work; `GET /api/health` and the start-up log say the same.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { featureUnavailable } from './errors';

export type Feature = 'drone' | 'raster';

/** Every program the server runs, the Debian package that has it (deploy/debian-packages.txt) and what needs it. */
export const RUNTIME_TOOLS: readonly { program: string; debianPackage: string; feature: Feature }[] = [
  // lib/drone/ortho.ts and lib/drone/index.ts write the mosaic's and the index's GeoTIFFs with it.
  { program: 'gdal_translate', debianPackage: 'gdal-bin', feature: 'drone' },
];

export interface Missing {
  program: string;
  debianPackage: string;
}

export interface Capabilities {
  /** Per feature: true, or false with what is missing. Raster zoning needs no program (geotiff.js, sharp). */
  available: Record<Feature, boolean>;
  missing: Partial<Record<Feature, Missing[]>>;
}

/** The path of an executable file named `program` in one of PATH's folders, as the shell would find it. */
export function findOnPath(program: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

export function probeCapabilities(path = process.env.PATH ?? ''): Capabilities {
  const available: Record<Feature, boolean> = { drone: true, raster: true };
  const missing: Capabilities['missing'] = {};
  for (const t of RUNTIME_TOOLS) {
    if (findOnPath(t.program, path)) continue;
    available[t.feature] = false;
    (missing[t.feature] ??= []).push({ program: t.program, debianPackage: t.debianPackage });
  }
  return { available, missing };
}

let probed: Capabilities | undefined;

/** This process's capabilities, probed on first use (the server and the worker call it at start). */
export const capabilities = (): Capabilities => (probed ??= probeCapabilities());

/** One line per unavailable feature, for logs and the health report. */
export function missingReasons(c: Capabilities): Partial<Record<Feature, string>> {
  return Object.fromEntries(
    Object.entries(c.missing).map(([feature, tools]) => {
      const packages = [...new Set(tools.map((t) => t.debianPackage))].join(' ');
      return [feature, `${tools.map((t) => t.program).join(', ')} not found on PATH: install the Debian package ${packages} (apt-get install ${packages})`];
    }),
  );
}

/** The 503 for a request that needs a feature this machine lacks, before any of its body is read. */
export function requireFeature(feature: Feature): void {
  const tools = capabilities().missing[feature];
  if (tools) throw featureUnavailable(feature, [...new Set(tools.map((t) => t.debianPackage))].join(' '));
}
