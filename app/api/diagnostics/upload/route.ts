// Test-only (SERVICE_ENV=test): receives a multipart upload through the same streaming helper as the
// real upload paths and answers what arrived, so a test can prove large bodies arrive whole.
import { join } from 'node:path';
import { config } from '@/lib/config';
import { notFound } from '@/lib/errors';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { receiveMultipart } from '@/lib/uploads/multipart';

export const dynamic = 'force-dynamic';

export const POST = route('POST /api/diagnostics/upload', async ({ req }) => {
  if (config().SERVICE_ENV !== 'test') throw notFound();
  const received = await receiveMultipart(req, { dir: join(config().dataDir, 'tmp'), files: { file: 1024 * 1024 * 1024 } });
  try {
    const file = received.files.file;
    return ok({ size: file?.size ?? 0, sha256: file?.sha256 ?? null, fields: received.fields });
  } finally {
    await received.discard();
  }
});
