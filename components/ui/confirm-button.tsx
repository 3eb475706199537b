'use client';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Button } from './form';

/** A destructive action behind an explicit second step (no browser confirm() dialogs). */
export function ConfirmButton({ label, question, onConfirm, disabled }: { label: string; question: string; onConfirm: () => Promise<void> | void; disabled?: boolean }) {
  const t = useTranslations('common');
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking) {
    return (
      <Button variant="danger" onClick={() => setAsking(true)} disabled={disabled}>
        {label}
      </Button>
    );
  }
  return (
    <span role="group" aria-label={question} className="inline-flex flex-wrap items-center gap-2 rounded border border-red-200 bg-red-50 px-2 py-1 text-sm">
      <span className="text-red-900">{question}</span>
      <Button
        variant="danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {t('confirm_yes')}
      </Button>
      <Button variant="secondary" onClick={() => setAsking(false)} disabled={busy}>
        {t('cancel')}
      </Button>
    </span>
  );
}
