'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { FilePicker } from '../ui/file-picker';
import { ErrorMessage } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';
import { UploadBar, useUpload } from './progress';

interface ShapefileResult {
  fields_created: number;
  skipped?: { feature: number | string; reason: string }[];
  duplicates_skipped?: number;
  crs?: string;
  encoding?: string;
}

export function ShapefileUpload() {
  const t = useTranslations('uploads');
  const router = useRouter();
  const { progress, error, busy, send } = useUpload<ShapefileResult>();
  const [result, setResult] = useState<ShapefileResult | null>(null);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const input = e.currentTarget.elements.namedItem('shapefile_zip') as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    const form = new FormData();
    form.append('shapefile_zip', file, file.name);
    setResult(null);
    const accepted = await send('/upload', form, file.size);
    if (!accepted) return;
    setResult(accepted);
    router.refresh();
  }

  return (
    <Form onSubmit={submit} className="space-y-3" aria-label={t('shapefile_title')}>
      <p className="text-sm text-stone-600">{t('shapefile_help')}</p>
      <FilePicker label={t('shapefile_file')} name="shapefile_zip" accept=".zip,application/zip" />
      <SubmitButton busy={busy}>
        {t('import')}
      </SubmitButton>
      <UploadBar progress={progress} />
      <ErrorMessage>{error}</ErrorMessage>
      {result && <ShapefileReport result={result} />}
    </Form>
  );
}

/** What the import made and left out, with the ways to see the new fields. */
function ShapefileReport({ result }: { result: ShapefileResult }) {
  const t = useTranslations('uploads');
  return (
    <div role="status" className="space-y-2 rounded border border-emerald-200 bg-emerald-50 p-3 text-sm" data-testid="shapefile-result">
      <p className="font-medium">{t('fields_created', { count: result.fields_created })}</p>
      {!!result.duplicates_skipped && <p>{t('duplicates_skipped', { count: result.duplicates_skipped })}</p>}
      {(result.crs || result.encoding) && (
        <p className="text-stone-600">
          {result.crs && t('crs', { crs: result.crs })} {result.encoding && t('encoding', { encoding: result.encoding })}
        </p>
      )}
      {!!result.skipped?.length && (
        <div>
          <p className="font-medium text-amber-800">{t('skipped', { count: result.skipped.length })}</p>
          <ul className="list-disc pl-5">
            {result.skipped.map((s, i) => (
              <li key={i}>
                {t('skipped_feature', { feature: String(s.feature) })}: {s.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      <p className="flex gap-3">
        <Link href="/map" className="text-emerald-800 underline">
          {t('see_on_map')}
        </Link>
        <Link href="/fields" className="text-emerald-800 underline">
          {t('see_in_table')}
        </Link>
      </p>
    </div>
  );
}
