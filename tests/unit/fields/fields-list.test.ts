// The field list read page by page from a real SQLite file, its streamed JSON text, and one field's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, createDb } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, scratchSqlite } from '@/lib/db/scratch';
import { tenantDb } from '@/lib/db/tenant';
import { featureCollectionChunks, fieldDetail, fieldDetailJson, fieldPages, fieldsExtent, getField, listFieldRows } from '@/lib/fields/fields';
import { boundingBox } from '@/lib/geo/geometry';
import { streamResponse } from '@/lib/http/stream';

let scratch: ScratchDb;
let db: Db;
const companies: number[] = [];

function square(lon: number, lat: number) {
  const d = 0.001;
  return { type: 'Polygon' as const, coordinates: [[[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]] };
}

beforeAll(async () => {
  scratch = scratchSqlite();
  await migrate(scratch.target);
  db = createDb(scratch.target);
  for (const name of ['A', 'B']) {
    const company = await db.company.create({ data: { name, slug: name.toLowerCase() } });
    companies.push(company.id);
    const owner = await db.owner.create({ data: { companyId: company.id, name: `Владелец ${name}` } });
    // Interleaved with the other company's, so that pages must skip foreign ids.
    for (let i = 0; i < 5; i++) {
      const geometry = square(30 + i, 50);
      await db.field.create({
        data: { companyId: company.id, ownerId: i % 2 ? owner.id : null, name: `${name}${i}`, area: 1.23456789, status: i < 3 ? 'Аренда' : null, geometry: JSON.stringify(geometry), ...boundingBox(geometry) },
      });
    }
  }
});

afterAll(async () => {
  await db?.$disconnect();
  await scratch?.drop();
});

const collect = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describe('fieldPages', () => {
  it('reads the own company only, in id order, a page at a time', async () => {
    const pages = await collect(fieldPages(tenantDb(db, companies[0]!), {}, 2));
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const fields = pages.flat();
    expect(fields.map((f) => f.name)).toEqual(['A0', 'A1', 'A2', 'A3', 'A4']);
    expect(fields.map((f) => f.id)).toEqual([...fields.map((f) => f.id)].sort((a, b) => a - b));
    expect(fields[1]!.owner).toBe('Владелец A');
    expect(fields[0]!.owner).toBeNull();
  });

  it('keeps the filters on every page', async () => {
    const b = tenantDb(db, companies[1]!);
    expect((await collect(fieldPages(b, { status: 'Аренда' }, 1))).flat().map((f) => f.name)).toEqual(['B0', 'B1', 'B2']);
    // A page spans the ids between its first and last match: the others in that range stay out.
    expect((await collect(fieldPages(b, { owner_id: (await b.owner.findFirstOrThrow()).id }, 2))).map((p) => p.map((f) => f.name))).toEqual([['B1', 'B3']]);
    expect((await collect(fieldPages(b, { bbox: [31.5, 49.9, 33.5, 50.1] }, 1))).flat().map((f) => f.name)).toEqual(['B2', 'B3']);
    expect(await collect(fieldPages(b, { q: 'nothing' }, 2))).toEqual([]);
  });
});

describe('listFieldRows', () => {
  it('are the pages\' fields without their geometry, under the same filters', async () => {
    const a = tenantDb(db, companies[0]!);
    for (const query of [{}, { status: 'Аренда' }, { q: 'a3' }, { bbox: [31.5, 49.9, 33.5, 50.1] as [number, number, number, number] }]) {
      const rows = await listFieldRows(a, query);
      expect(rows).toEqual((await collect(fieldPages(a, query, 2))).flat().map((f) => ({ id: f.id, name: f.name, area: f.area, status: f.status, parcelNumber: f.parcelNumber, ownerId: f.ownerId, owner: f.owner })));
    }
    expect((await listFieldRows(a, {})).map((r) => r.name)).toEqual(['A0', 'A1', 'A2', 'A3', 'A4']);
  });
});

describe('fieldsExtent', () => {
  it('is the box around the company\'s fields or one of them, and null for none', async () => {
    const a = tenantDb(db, companies[0]!);
    expect(await fieldsExtent(a)).toEqual({ minLon: 30, minLat: 50, maxLon: 34.001, maxLat: 50.001 });
    const [, second] = await listFieldRows(a, {});
    expect(await fieldsExtent(a, second!.id)).toEqual({ minLon: 31, minLat: 50, maxLon: 31.001, maxLat: 50.001 });
    // Another company's field is no field at all.
    const [foreign] = await listFieldRows(tenantDb(db, companies[1]!), {});
    expect(await fieldsExtent(a, foreign!.id)).toBeNull();
  });
});

describe('featureCollectionChunks', () => {
  it('join to the collection built from the rows another way, for none, one and several pages', async () => {
    const fields = (await collect(fieldPages(tenantDb(db, companies[0]!), {}))).flat();
    for (const pages of [[], [fields], [fields.slice(0, 2), fields.slice(2, 4), fields.slice(4)]]) {
      const text = Buffer.concat(await collect(featureCollectionChunks((async function* () { yield* pages; })()))).toString();
      expect(JSON.parse(text)).toEqual({
        type: 'FeatureCollection',
        features: pages.flat().map((f) => ({
          type: 'Feature',
          id: f.id,
          properties: { name: f.name, area: 1.2346, owner: f.owner, owner_id: f.ownerId, status: f.status, parcel_number: f.parcelNumber },
          geometry: JSON.parse(f.geometry),
        })),
      });
    }
  });
});

describe('fieldDetailJson', () => {
  it('is the detail with the stored geometry and attributes spliced in as they are', async () => {
    const a = tenantDb(db, companies[0]!);
    const attributes = { NAZEV: 'Pole "u lesa"\nsever', kód: 7, nested: { ok: true, list: [1, null] } };
    const geometry = square(40, 50);
    const { id } = await a.field.create({
      data: { companyId: companies[0]!, ownerId: (await a.owner.findFirstOrThrow()).id, name: 'Поле «Север»', area: 2.5, status: 'Аренда', parcelNumber: '61:02:1', geometry: JSON.stringify(geometry), attributesJson: JSON.stringify(attributes), ...boundingBox(geometry) },
      select: { id: true },
    });
    const field = await getField(a, id);
    const parsed = JSON.parse(fieldDetailJson(field));
    expect(parsed).toEqual(fieldDetail(field));
    expect(parsed).toEqual({
      id,
      name: 'Поле «Север»',
      area: 2.5,
      area_unit: 'ha',
      owner: { id: field.ownerId, name: 'Владелец A' },
      status: 'Аренда',
      parcel_number: '61:02:1',
      geometry,
      created_at: field.createdAt.toISOString(),
      updated_at: field.updatedAt.toISOString(),
      attributes,
    });
    await a.field.delete({ where: { id } });
  });
});

describe('streamResponse', () => {
  it('sends the chunks in order as one body', async () => {
    const chunks = async function* () {
      yield Buffer.from('{"a":');
      yield Buffer.from('"Поле"}');
    };
    const res = await streamResponse(chunks(), 'application/json');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('{"a":"Поле"}');
  });

  it('fails before answering when the first chunk fails', async () => {
    const failing = async function* (): AsyncGenerator<Buffer> {
      throw new Error('database down');
    };
    await expect(streamResponse(failing(), 'application/json')).rejects.toThrow('database down');
  });
});
