// Browser tests drive Debian's Chromium (never a downloaded browser) against the built server on a
// fresh SQLite database.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

// Evaluated again in each worker: the main process's values are inherited through the environment.
process.env.E2E_DATA ??= mkdtempSync(join(tmpdir(), 'fieldmap-e2e-'));
// A port the system says is free (a random one once landed on MariaDB's 3306). The config is read
// synchronously, so a short child process asks.
process.env.E2E_PORT ??= execFileSync(process.execPath, [
  '-e', "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); })",
]).toString();
const port = Number(process.env.E2E_PORT);
// A second port for the base map's tiles that tests/e2e/layers.spec.ts serves itself.
process.env.E2E_TILE_PORT ??= execFileSync(process.execPath, [
  '-e', "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); })",
]).toString();

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results/e2e',
  // Ceilings for waits on a state, not times to wait: sized for a machine loaded by other work (load 3-6
  // on 2 cores made the 5 s default of an expectation too short for a page to hydrate and answer).
  timeout: 120_000,
  expect: { timeout: 15_000 },
  workers: 1,
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    trace: 'retain-on-failure',
  },
  webServer: {
    command: `node --import tsx lib/server/serve.ts start -p ${port} -H 127.0.0.1`,
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      SERVICE_ENV: 'test',
      SERVICE_DB: join(process.env.E2E_DATA, 'fields.db'),
      DATA_DIR: process.env.E2E_DATA,
      // The tests register a company each, all from this machine's address.
      REGISTRATIONS_PER_HOUR: '1000000',
      SESSION_SECRET: 'e2e-secret-0123456789abcdef',
      LOG_LEVEL: 'warn',
      NEXT_TELEMETRY_DISABLED: '1',
      NEXT_DIST_DIR: process.env.NEXT_DIST_DIR ?? '.next',
      // No tiles in tests at first: the map must work without them. The second base map is served by
      // the test that switches to it.
      MAP_BASE_LAYERS: JSON.stringify([
        { name: 'Unreachable', url: `http://127.0.0.1:${port}/tiles-unreachable/{z}/{x}/{y}.png` },
        { name: 'Local test tiles', url: `http://127.0.0.1:${process.env.E2E_TILE_PORT}/{z}/{x}/{y}.png`, attribution: 'Test tiles', maxZoom: 18 },
      ]),
    },
  },
});
