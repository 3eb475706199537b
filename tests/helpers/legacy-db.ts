// A v2026.2 database generated for a test (the schema of ../shared/fixtures/v2026_2/build.py), with
// the rows the test gives, written by Python's sqlite3 as v2026.2 wrote them: text keeps a NUL.
import { execFileSync } from 'node:child_process';

const DDL = `
CREATE TABLE "owner" ("id" INTEGER NOT NULL PRIMARY KEY, "name" VARCHAR(255) NOT NULL);
CREATE TABLE "field" ("id" INTEGER NOT NULL PRIMARY KEY, "name" VARCHAR(255), "geometry_wkt" TEXT NOT NULL,
  "properties_json" TEXT, "owner_id" INTEGER, FOREIGN KEY ("owner_id") REFERENCES "owner" ("id"));
CREATE TABLE "fieldscan" ("id" INTEGER NOT NULL PRIMARY KEY, "field_id" INTEGER NOT NULL, "file_path" VARCHAR(255) NOT NULL,
  "filename" VARCHAR(255) NOT NULL, "uploaded_at" DATETIME NOT NULL, "ndvi_min" REAL, "ndvi_max" REAL, "ndvi_avg" REAL,
  "processed" TEXT, "task_id" VARCHAR(255), FOREIGN KEY ("field_id") REFERENCES "field" ("id") ON DELETE CASCADE);
CREATE TABLE "fieldzone" ("id" INTEGER NOT NULL PRIMARY KEY, "field_id" INTEGER NOT NULL, "scan_id" INTEGER,
  "name" VARCHAR(255) NOT NULL, "geometry_wkt" TEXT NOT NULL, "min_value" REAL, "max_value" REAL, "avg_ndvi" REAL,
  "color" VARCHAR(255) NOT NULL, FOREIGN KEY ("field_id") REFERENCES "field" ("id"),
  FOREIGN KEY ("scan_id") REFERENCES "fieldscan" ("id"));
CREATE UNIQUE INDEX "owner_name" ON "owner" ("name");
`;

/** A lon/lat rectangle as v2026.2's WKT. */
export const rectWkt = (lon: number, lat: number, w = 0.004, h = 0.004) =>
  `POLYGON ((${lon} ${lat}, ${lon + w} ${lat}, ${lon + w} ${lat + h}, ${lon} ${lat + h}, ${lon} ${lat}))`;

export interface LegacyRows {
  owner?: [number, string][];
  /** id, name, WKT, properties_json, owner_id */
  field?: [number, string | null, string, string | null, number | null][];
  /** id, field_id, filename, uploaded_at */
  fieldscan?: [number, number, string, string][];
  /** id, field_id, scan_id, name, WKT, color */
  fieldzone?: [number, number, number | null, string, string, string][];
}

/** Writes a v2026.2 database holding `rows` at `file`. */
export function writeLegacyDb(file: string, rows: LegacyRows): void {
  const script = `import json, sqlite3, sys
rows = json.loads(sys.stdin.read())
c = sqlite3.connect(${JSON.stringify(file)})
c.executescript(${JSON.stringify(DDL)})
for r in rows.get('owner', []): c.execute('INSERT INTO owner VALUES (?, ?)', r)
for r in rows.get('field', []): c.execute('INSERT INTO field VALUES (?, ?, ?, ?, ?)', r)
for i, f, name, at in rows.get('fieldscan', []): c.execute("INSERT INTO fieldscan VALUES (?, ?, 'uploads/' || ?, ?, ?, 0.1, 0.9, 0.5, 'true', NULL)", (i, f, name, name, at))
for i, f, s, name, wkt, color in rows.get('fieldzone', []): c.execute('INSERT INTO fieldzone VALUES (?, ?, ?, ?, ?, 0.2, 0.5, 0.4, ?)', (i, f, s, name, wkt, color))
c.commit()
c.close()`;
  execFileSync('python3', ['-c', script], { input: JSON.stringify(rows) });
}
