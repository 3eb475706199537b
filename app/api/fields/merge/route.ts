import { fieldDetail } from '@/lib/fields/fields';
import { mergeFields } from '@/lib/fields/merge';
import { mergeFieldsBody } from '@/lib/fields/schemas';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { readJson } from '@/lib/http/validate';

export const POST = route('POST /api/fields/merge', async ({ req, db, user }) =>
  ok({ field: fieldDetail(await mergeFields(db, user.companyId, await readJson(req, mergeFieldsBody))) }),
);
