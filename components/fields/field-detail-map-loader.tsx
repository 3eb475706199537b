'use client';
import dynamic from 'next/dynamic';
import { useTranslations } from 'next-intl';
import type { FieldDetailMapProps } from './field-detail-map';

function Loading() {
  const t = useTranslations('map');
  return (
    <div className="flex h-[calc(100dvh-9rem)] min-h-[360px] items-center justify-center rounded-lg border border-stone-200 bg-stone-100 text-stone-600" role="status">
      {t('loading')}
    </div>
  );
}

const FieldDetailMap = dynamic(() => import('./field-detail-map'), { ssr: false, loading: Loading });

export function FieldDetailMapLoader(props: FieldDetailMapProps) {
  return <FieldDetailMap {...props} />;
}
