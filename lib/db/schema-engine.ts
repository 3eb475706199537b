// Prisma's own schema engine compiled to WebAssembly, driven through the driver adapters. Used by
// `npm run db:diff` to write migrations and by the tests to prove that migrations and
// prisma/models.prisma agree. Its API is internal to Prisma: the package version is pinned to the CLI's.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaPg } from '@prisma/adapter-pg';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';
import { buildSchema } from '../../prisma/generate';
import { type DbTarget, sqliteUrl } from './target';

let loaded = false;

async function loadEngine(): Promise<void> {
  if (loaded) return;
  const require = createRequire(import.meta.url);
  // The package exports no path to its .wasm; it sits beside the main module.
  const dir = dirname(require.resolve('@prisma/schema-engine-wasm'));
  const { instance } = await WebAssembly.instantiate(readFileSync(join(dir, 'schema_engine_bg.wasm')), {
    './schema_engine_bg.js': bg as unknown as WebAssembly.ModuleImports,
  });
  const exports = instance.exports as unknown as { __wbindgen_start: () => void };
  bg.__wbg_set_wasm(exports);
  exports.__wbindgen_start();
  loaded = true;
}

type Source = { models: string } | 'empty' | 'live';

async function diff(target: DbTarget, from: Source, toModels: string): Promise<string> {
  await loadEngine();
  const factory =
    target.kind === 'sqlite'
      ? new PrismaLibSql({ url: sqliteUrl(target.file) })
      : new PrismaPg({ connectionString: target.url });
  const files = (models: string) => [{ path: 'schema.prisma', content: buildSchema(target.kind, models) }];
  const toFiles = files(toModels);
  const engine = await bg.SchemaEngine.new(
    { datamodels: toFiles.map((f) => [f.path, f.content] as [string, string]) },
    () => undefined,
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  try {
    const result = await engine.diff({
      from:
        from === 'empty'
          ? { tag: 'empty' }
          : from === 'live'
            ? { tag: 'schemaDatasource', files: toFiles, configDir: process.cwd() }
            : { tag: 'schemaDatamodel', files: files(from.models) },
      to: { tag: 'schemaDatamodel', files: toFiles },
      script: true,
      exitCode: null,
      filters: { externalTables: [target.kind === 'sqlite' ? '_migrations' : 'public._migrations'], externalEnums: [] },
    });
    const sql = result.stdout ?? '';
    return /^\s*(-- This is an empty migration\.)?\s*$/.test(sql) ? '' : sql;
  } finally {
    engine.free();
  }
}

/** SQL that turns a database shaped by `fromModels` (or an empty one) into one shaped by `toModels`. */
export const diffModels = (target: DbTarget, fromModels: string | 'empty', toModels: string) =>
  diff(target, fromModels === 'empty' ? 'empty' : { models: fromModels }, toModels);

/**
 * SQL that turns the live database into what `models` describes ('' when they match). SQLite only:
 * on PostgreSQL the WASM engine cannot yet read pg's internal "char" catalog type.
 */
export const diffLiveSqlite = (target: DbTarget & { kind: 'sqlite' }, models: string) => diff(target, 'live', models);
