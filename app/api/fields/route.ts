import { createField, featureCollectionChunks, fieldPages, updateFields } from '@/lib/fields/fields';
import { createFieldBody, fieldListQuery, updateFieldsBody } from '@/lib/fields/schemas';
import { created, ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { streamResponse } from '@/lib/http/stream';
import { readJson, readQuery } from '@/lib/http/validate';

export const GET = route('GET /api/fields', async ({ db, url }) =>
  streamResponse(featureCollectionChunks(fieldPages(db, readQuery(url, fieldListQuery))), 'application/geo+json; charset=utf-8'),
);

export const POST = route('POST /api/fields', async ({ req, db }) => {
  const field = await createField(db, await readJson(req, createFieldBody));
  return created(field.id, '/api/fields');
});

export const PATCH = route('PATCH /api/fields', async ({ req, db }) => {
  const { ids, ...change } = await readJson(req, updateFieldsBody);
  return ok({ updated: await updateFields(db, ids, change) });
});
