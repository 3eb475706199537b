'use client';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { type ReactNode, useState } from 'react';
import { api } from '@/lib/ui/api';
import { ErrorMessage, SuccessMessage } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';

/**
 * A form that saves one thing a user says of a scan (PUT /api/scans/{id}): the value of its input
 * named `name`. The page is then shown again on that scan: a new date can move it from the top of
 * the field's scans, which the page shows when none is chosen.
 */
export function ScanSettingForm({ scanId, name, label, savedText, className = '', children }: { scanId: number; name: 'crop_type' | 'captured_at'; label: string; savedText: string; className?: string; children: ReactNode }) {
  const t = useTranslations();
  const router = useRouter();
  const pathname = usePathname();
  const chosen = useSearchParams().get('scan');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  async function save(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const value = (e.currentTarget.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement).value;
    setBusy(true);
    setSaved(false);
    const res = await api(`/api/scans/${scanId}`, { method: 'PUT', body: { [name]: value } });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    setError(null);
    setSaved(true);
    if (chosen === String(scanId)) router.refresh();
    else router.replace(`${pathname}?scan=${scanId}`, { scroll: false });
  }

  return (
    <Form onSubmit={save} className={`flex flex-wrap items-end gap-2 ${className}`} aria-label={label}>
      {children}
      <SubmitButton variant="secondary" busy={busy}>
        {t('common.save')}
      </SubmitButton>
      <div className="basis-full">
        <ErrorMessage>{error}</ErrorMessage>
        {saved && <SuccessMessage>{savedText}</SuccessMessage>}
      </div>
    </Form>
  );
}
