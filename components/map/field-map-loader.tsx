'use client';
// Leaflet touches `window` when imported: the map is loaded in the browser only.
import dynamic from 'next/dynamic';
import { useTranslations } from 'next-intl';
import type { FieldMapProps } from './field-map';

function Loading() {
  const t = useTranslations('map');
  return (
    <div className="flex min-h-[320px] flex-1 items-center justify-center bg-stone-100 text-stone-600" role="status">
      {t('loading')}
    </div>
  );
}

const FieldMap = dynamic(() => import('./field-map'), { ssr: false, loading: Loading });

export function FieldMapLoader(props: FieldMapProps) {
  return <FieldMap {...props} />;
}
