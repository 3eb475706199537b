'use client';
// The flight plan drawn before its KMZ is downloaded, from the same planner as the KMZ
// (GET /api/field/export/kmz/{id}/preview), redrawn as the drone, height, overlap and direction change.
import dynamic from 'next/dynamic';
import { useFormatter, useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import type { FlightPreview as Preview } from '@/lib/exports/flight-preview';
import { api } from '@/lib/ui/api';
import type { BaseLayer } from '@/lib/ui/types';

const FlightPreviewMap = dynamic(() => import('./flight-preview-map'), { ssr: false });

/** Typing "120" asks for 1, 12 and 120 m: only the value the keys stopped at is planned. */
const SETTLE_MS = 300;

type State = { kind: 'loading' } | { kind: 'plan'; preview: Preview; query: string } | { kind: 'error'; error: string | null; query: string };

export function FlightPreview({ fieldId, query, baseLayer }: { fieldId: number; query: string; baseLayer: BaseLayer }) {
  const t = useTranslations('exports');
  const tc = useTranslations('common');
  const format = useFormatter();
  const [state, setState] = useState<State>({ kind: 'loading' });

  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      void api<Preview>(`/api/field/export/kmz/${fieldId}/preview?${query}`).then((res) => {
        if (!current) return;
        setState(res.ok ? { kind: 'plan', preview: res.data, query } : { kind: 'error', error: res.error, query });
      });
    }, SETTLE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [fieldId, query]);

  // Until the plan of the parameters now in the form arrives, what is shown is the last one's.
  const stale = state.kind !== 'loading' && state.query !== query;
  return (
    <section className="space-y-2 sm:col-span-2" aria-label={t('preview_title')} data-testid="flight-preview">
      <h3 className="text-sm font-medium text-stone-800">{t('preview_title')}</h3>
      {state.kind === 'plan' && <FlightPreviewMap baseLayer={baseLayer} plan={state.preview.plan} label={t('preview_map_label')} />}
      <p
        role="status"
        aria-busy={state.kind === 'loading' || stale}
        className={state.kind === 'error' ? 'text-sm text-red-700' : 'text-sm text-stone-700'}
        data-testid="flight-preview-summary"
        data-waypoints={state.kind === 'plan' && !stale ? state.preview.summary.waypoints : undefined}
      >
        {state.kind === 'loading'
          ? t('preview_loading')
          : state.kind === 'error'
            ? (state.error ?? tc('network_error'))
            : t('preview_summary', {
                minutes: format.number(Math.ceil(state.preview.summary.duration_s / 60)),
                km: format.number(state.preview.summary.distance_m / 1000, { maximumFractionDigits: 1 }),
                photos: state.preview.summary.photos,
                batteries: state.preview.summary.batteries,
                waypoints: state.preview.summary.waypoints,
              })}
      </p>
      {state.kind === 'plan' && !state.preview.summary.photos_drawn && <p className="text-xs text-stone-600">{t('preview_photos_not_drawn')}</p>}
    </section>
  );
}
