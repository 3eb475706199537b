'use client';
import { useTranslations } from 'next-intl';
import { useId, useState } from 'react';

/** A file input whose button and "no file" text are in the page's language (the browser's are not). */
export function FilePicker({ label, name, accept }: { label: string; name: string; accept: string }) {
  const t = useTranslations('common');
  const labelId = useId();
  const [fileName, setFileName] = useState<string | null>(null);
  return (
    <div className="space-y-1 text-sm">
      <span id={labelId} className="block font-medium text-stone-700">
        {label}
      </span>
      <label className="flex min-w-0 cursor-pointer items-center gap-2">
        <input
          type="file"
          name={name}
          accept={accept}
          required
          aria-labelledby={labelId}
          className="peer sr-only"
          onChange={(e) => setFileName(e.target.files?.[0]?.name ?? null)}
        />
        <span className="shrink-0 rounded border border-stone-300 bg-white px-3 py-1.5 font-medium hover:bg-stone-100 peer-focus-visible:ring-2 peer-focus-visible:ring-emerald-600">
          {t('choose_file')}
        </span>
        <span className={`truncate ${fileName ? 'text-stone-900' : 'text-stone-600'}`}>{fileName ?? t('no_file')}</span>
      </label>
    </div>
  );
}
