'use client';
import { useTranslations } from 'next-intl';
import { useEffect, useRef, useState } from 'react';
import { Button } from './form';

/** A destructive action behind an explicit second step (no browser confirm() dialogs). */
/** `name`: the trigger's accessible name when `label` alone does not say what it acts on (a row's "Delete"). */
export function ConfirmButton({ label, name, question, onConfirm, disabled }: { label: string; name?: string; question: string; onConfirm: () => Promise<void> | void; disabled?: boolean }) {
  const t = useTranslations('common');
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  // Keyboard users keep their place: the question takes the focus, and a cancel gives it back.
  const trigger = useRef<HTMLButtonElement>(null);
  const cancelled = useRef(false);
  useEffect(() => {
    if (asking || !cancelled.current) return;
    cancelled.current = false;
    trigger.current?.focus();
  }, [asking]);
  const cancel = () => {
    cancelled.current = true;
    setAsking(false);
  };
  if (!asking) {
    return (
      <Button ref={trigger} variant="danger" onClick={() => setAsking(true)} disabled={disabled} aria-label={name}>
        {label}
      </Button>
    );
  }
  return (
    <span role="group" aria-label={question} className="inline-flex flex-wrap items-center gap-2 rounded border border-red-200 bg-red-50 px-2 py-1 text-sm">
      <span className="text-red-900">{question}</span>
      <Button
        variant="danger"
        busy={busy}
        autoFocus
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
      <Button variant="secondary" onClick={cancel} busy={busy}>
        {t('cancel')}
      </Button>
    </span>
  );
}
