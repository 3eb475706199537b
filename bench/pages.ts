// Issue 7's benchmark: the server-rendered first response of every page for a company with 1,000
// fields (median of 10 requests after one warm-up), against the real server on SQLite.
import { createDb } from '../lib/db/client';
import { migrate } from '../lib/db/migrate';
import { scratchSqlite } from '../lib/db/scratch';
import { registerCompany } from '../tests/helpers/company';
import { startServer } from '../tests/helpers/server';
import { type Row, median, printTable, round, writeResults } from './lib';

const FIELDS = 1000;

const square = (i: number) => {
  const [lon, lat] = [39 + (i % 40) * 0.01, 47 + Math.floor(i / 40) * 0.01];
  return { type: 'Polygon', coordinates: [[[lon, lat], [lon + 0.008, lat], [lon + 0.008, lat + 0.006], [lon, lat + 0.006], [lon, lat]]] };
};

export async function benchPages(): Promise<Row[]> {
  const scratch = scratchSqlite();
  await migrate(scratch.target);
  const server = await startServer({ env: { ...scratch.env, LOG_LEVEL: 'error' } });
  try {
    const { api, user } = await registerCompany(server.url);
    const db = createDb(scratch.target);
    const owner = await db.owner.create({ data: { companyId: user.company.id, name: 'ООО Колос' } });
    await db.field.createMany({
      data: Array.from({ length: FIELDS }, (_, i) => {
        const g = square(i);
        const [[x0, y0], [x1], [, y2]] = [g.coordinates[0]![0]!, g.coordinates[0]![1]!, g.coordinates[0]![2]!];
        return { companyId: user.company.id, ownerId: i % 2 ? owner.id : null, name: `Поле ${i}`, area: 36, status: i % 3 ? 'Аренда' : 'Собственность', geometry: JSON.stringify(g), minLon: x0!, minLat: y0!, maxLon: x1!, maxLat: y2! };
      }),
    });
    await db.$disconnect();
    const firstId = (await api.get('/api/fields')).body.features[0].id;
    const pages = ['/map', '/fields', `/fields/${firstId}`, '/uploads', '/owners', '/stats', '/profile', '/company'];
    const rows: Row[] = [];
    for (const path of pages) {
      const times: number[] = [];
      for (let i = 0; i < 11; i++) {
        const t = performance.now();
        const res = await fetch(server.url + path, { headers: { cookie: `session_token=${api.cookie}`, 'accept-language': 'ru' } });
        await res.text();
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
        if (i > 0) times.push(performance.now() - t);
      }
      const ms = median(times);
      rows.push({ metric: `GET ${path.replace(String(firstId), '{id}')} (1,000 fields)`, value: round(ms, 0), unit: 'ms', target: '< 300', ok: ms < 300 });
    }
    writeResults('pages', rows);
    printTable('First render of each page', rows);
    return rows;
  } finally {
    await server.stop();
    await scratch.drop();
  }
}
