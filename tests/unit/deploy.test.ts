// The deployment files (issue 37) as far as this machine can check them without Docker: nginx's own
// check of deploy/nginx.conf, docker-compose.yml against lib/config.ts and the README's settings, the
// Dockerfile's and the Makefile's Debian packages from one list, and `make run` on a machine where it
// cannot install them.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RUNTIME_TOOLS, findOnPath } from '@/lib/capabilities';
import { SETTINGS, parseConfig } from '@/lib/config';
import { parseServeArgs } from '@/lib/server/cluster';
import pkg from '../../package.json';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const packages = (section: string) => execFileSync('sh', [join(ROOT, 'deploy/debian-packages.sh'), section], { encoding: 'utf8' }).trim().split(/\s+/).filter(Boolean);

/** The settings the README's table names (its rows start with a setting in backquotes). */
const readmeSettings = () => new Set([...read('README.md').matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!));

const nginx = findOnPath('nginx', `${process.env.PATH}:/usr/sbin:/sbin`);
if (!nginx) console.warn('skipping the nginx -t check of deploy/nginx.conf: nginx is not installed (apt-get install nginx; make test does)');

describe('deploy/nginx.conf', () => {
  it.skipIf(!nginx)('passes nginx -t (Debian nginx), with the upstream host as this machine', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nginx-t-'));
    // Docker's DNS name `web` does not resolve here: nginx -t resolves upstream hosts.
    const conf = read('deploy/nginx.conf').replace('server web:3000;', 'server 127.0.0.1:3000;');
    expect(conf).not.toBe(read('deploy/nginx.conf'));
    writeFileSync(join(dir, 'nginx.conf'), conf);
    const r = spawnSync(nginx!, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `pid ${dir}/nginx.pid; error_log ${dir}/error.log;`], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('test is successful');
  });

  it('sets what the issue asks of the proxy', () => {
    const conf = read('deploy/nginx.conf');
    for (const directive of [
      'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
      'proxy_set_header X-Forwarded-Proto $scheme;',
      'client_max_body_size 10g;',
      'proxy_request_buffering off;',
      'gzip_types application/json',
      'proxy_pass http://fieldmap_web;',
    ])
      expect(conf).toContain(directive);
    // Tiles' caching headers are passed through: nothing hides or overrides them.
    expect(conf).not.toMatch(/proxy_hide_header|proxy_ignore_headers|add_header\s+Cache-Control|expires\s/);
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, { build?: string; image?: string; command?: string[] | string; environment?: Record<string, string>; deploy?: { replicas?: number }; volumes?: string[] }>;
    volumes: Record<string, unknown>;
  };
  const services = compose.services;
  const fieldmap = Object.entries(services).filter(([, s]) => s.build === '.');

  it('has two web processes and two workers of the image built here, PostgreSQL, Redis and nginx', () => {
    expect(fieldmap.map(([name]) => name).sort()).toEqual(['migrate', 'web', 'worker']);
    expect(services.web!.deploy?.replicas).toBe(2);
    expect(services.worker!.deploy?.replicas).toBe(2);
    expect(services.postgres!.image).toMatch(/^postgres:/);
    expect(services.redis!.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
    expect(services.redis!.volumes).toEqual(['redis:/data']);
    expect(services.nginx!.volumes).toEqual(['./deploy/nginx.conf:/etc/nginx/nginx.conf:ro']);
    expect(existsSync(join(ROOT, 'deploy/nginx.conf'))).toBe(true);
    for (const [, s] of fieldmap) expect(s.volumes).toEqual(['data:/data']);
    expect(Object.keys(compose.volumes).sort()).toEqual(['data', 'pg', 'redis']);
  });

  it("sets only lib/config.ts's settings, each a row of the README's table, with values it accepts", () => {
    const documented = readmeSettings();
    for (const [name, s] of fieldmap) {
      const env = s.environment ?? {};
      for (const key of Object.keys(env)) {
        expect(SETTINGS, `${name}: ${key} is no setting of lib/config.ts`).toContain(key);
        expect(documented.has(key), `${name}: ${key} has no row in the README's settings table`).toBe(true);
      }
      // Compose refuses to start without SESSION_SECRET (`:?`); given one, the configuration is valid.
      expect(env.SESSION_SECRET).toMatch(/^\$\{SESSION_SECRET:\?.+\}$/);
      const parsed = parseConfig({ ...env, SESSION_SECRET: 'a-long-random-secret-for-the-check' } as unknown as NodeJS.ProcessEnv);
      expect(parsed.databaseKind, name).toBe('postgresql');
      expect(parsed.REDIS_URL, name).toBe('redis://redis:6379');
    }
    expect(services.web!.environment!.TRUSTED_PROXIES).toBe('1');
    expect(parseConfig({ TRUSTED_PROXIES: services.web!.environment!.TRUSTED_PROXIES } as unknown as NodeJS.ProcessEnv).TRUSTED_PROXIES).toBe(1);
  });

  it("runs commands that exist: the server's start arguments and package.json scripts", () => {
    const scripts = pkg.scripts as Record<string, string>;
    for (const [name, s] of fieldmap) {
      const command = s.command as string[];
      expect(Array.isArray(command), `${name}: command as a list`).toBe(true);
      if (command[0] === 'npm') {
        expect(command.slice(0, 2), name).toEqual(['npm', 'run']);
        expect(scripts[command.at(-1)!], `${name}: npm run ${command.at(-1)}`).toBeDefined();
      } else {
        expect(command.slice(0, 3), name).toEqual(['node', '--import', 'tsx']);
        expect(existsSync(join(ROOT, command[3]!)), command[3]).toBe(true);
        expect(parseServeArgs(command.slice(4), 3000)).toEqual({ port: 3000, hostname: undefined, keepAliveTimeoutMs: 65000 });
      }
    }
    // The web service starts the server as `make run` and the image's default command do.
    expect(read('Makefile')).toContain(`node --import tsx lib/server/serve.ts start -p $(PORT) --keepAliveTimeout 65000`);
    expect(read('Dockerfile')).toContain(`CMD ${JSON.stringify(services.web!.command).replaceAll(',', ', ')}`);
  });
});

describe('Debian packages from one list', () => {
  it('has every program the server runs in its [run] section', () => {
    const run = packages('run');
    for (const t of RUNTIME_TOOLS) expect(run, t.program).toContain(t.debianPackage);
    expect(packages('test')).toContain('nginx');
    expect(run.filter((p) => packages('test').includes(p))).toEqual([]);
  });

  it("gives the Makefile's lists and the Dockerfile's install the same packages", () => {
    const make = (variable: string) =>
      execFileSync('make', ['-s', '-C', ROOT, '--eval', `print-%: ; @echo $($*)`, `print-${variable}`], { encoding: 'utf8' }).trim().split(/\s+/);
    expect(make('RUN_PACKAGES')).toEqual(packages('run'));
    expect(make('TEST_PACKAGES')).toEqual(packages('test'));
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toContain('COPY deploy/debian-packages.txt deploy/debian-packages.sh /tmp/deploy/');
    expect(dockerfile).toMatch(/apt-get install -y --no-install-recommends \$\(sh \/tmp\/deploy\/debian-packages\.sh run\)/);
    // Nothing else is installed by name.
    expect(dockerfile.match(/apt-get install/g)).toHaveLength(1);
  });

  it('the Dockerfile: a Node LTS on bookworm-slim, several stages, a non-root user, a health check', () => {
    const dockerfile = read('Dockerfile');
    const image = /^ARG NODE_IMAGE=node:(\d+)-bookworm-slim$/m.exec(dockerfile);
    expect(image).not.toBeNull();
    // LTS lines are the even ones; 24 and later are supported past 2027.
    expect(Number(image![1]) % 2).toBe(0);
    expect(Number(image![1])).toBeGreaterThanOrEqual(24);
    expect(dockerfile.match(/^FROM /gm)!.length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n?.*\/api\/health/m);
    expect(dockerfile).toContain('COPY package.json package-lock.json ./');
  });

  it('make run stops with the apt-get command where it cannot install (not root)', () => {
    const fake = mkdtempSync(join(tmpdir(), 'not-root-'));
    // A machine where nothing is installed and the user is not root.
    writeFileSync(join(fake, 'id'), '#!/bin/sh\necho 1000\n');
    writeFileSync(join(fake, 'dpkg'), '#!/bin/sh\nexit 1\n');
    chmodSync(join(fake, 'id'), 0o755);
    chmodSync(join(fake, 'dpkg'), 0o755);
    const r = spawnSync('make', ['-s', '-C', ROOT, 'run-deps'], { encoding: 'utf8', env: { ...process.env, PATH: `${fake}:${process.env.PATH}` } });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`sudo apt-get install -y ${packages('run').join(' ')}`);
    // `make run` goes through it first.
    expect(read('Makefile')).toMatch(/^run: run-deps /m);
  });
});
