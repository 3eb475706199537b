'use client';
// The side panel's body: the field finder, the messages, and what the panel is about (the new field,
// the selection, the selected field, or all of them).
import { useTranslations } from 'next-intl';
import { useMemo } from 'react';
import type { FieldFeature, OwnerOption } from '@/lib/ui/types';
import { FieldFinder } from '../ui/field-finder';
import { ErrorMessage, SuccessMessage } from '../ui/form';
import type { LatestScans } from './field-colors';
import { type Abilities, FieldPanel, NewFieldPanel, SelectionPanel, SummaryPanel } from './field-panels';
import type { FieldMapWorkspace } from './use-field-map-workspace';

const featureSearchText = (f: FieldFeature) => `${f.properties.name} ${f.properties.parcel_number ?? ''}`;

interface FieldMapPanelProps {
  workspace: FieldMapWorkspace;
  owners: OwnerOption[];
  can: Abilities;
  latestScan: LatestScans;
}

export function FieldMapPanel({ workspace: w, owners, can, latestScan }: FieldMapPanelProps) {
  const { features } = w.data;
  return (
    <>
      {w.editing.mode.kind === 'idle' && features.length > 0 && <MapFieldFinder features={features} ha={w.colors.ha} onPick={w.actions.found} />}
      <ErrorMessage>{w.error}</ErrorMessage>
      <SuccessMessage>{w.notice}</SuccessMessage>
      <PanelSubject workspace={w} owners={owners} can={can} latestScan={latestScan} />
    </>
  );
}

function MapFieldFinder({ features, ha, onPick }: { features: FieldFeature[]; ha: (v: number) => string; onPick: (f: FieldFeature) => void }) {
  const t = useTranslations();
  // The finder names each field by `name`, as the list's properties hold it.
  const searchable = useMemo(() => features.map((f) => ({ ...f, name: f.properties.name })), [features]);
  return <FieldFinder label={t('map.find_field')} items={searchable} textOf={featureSearchText} detail={(f) => ha(f.properties.area)} onPick={onPick} />;
}

/** The new field's form, several fields selected, one field's details, or the summary of all of them. */
function PanelSubject({ workspace: w, owners, can, latestScan }: FieldMapPanelProps) {
  const { editing, picked, selected, actions, data } = w;
  const { mode } = editing;
  const { features } = data;
  const { ha } = w.colors;
  if (mode.kind === 'new') return <NewFieldPanel editing={editing} owners={owners} ha={ha} />;
  if (picked.selection.length > 1 && mode.kind === 'idle')
    return (
      <SelectionPanel
        chosen={features.filter((f) => picked.selection.includes(f.id))}
        adding={picked.adding}
        canMerge={can.delete}
        scanned={(id) => id in latestScan}
        ha={ha}
        onClose={() => picked.select(null)}
        onMerged={actions.merged}
      />
    );
  if (selected)
    return (
      <FieldPanel
        field={selected}
        editing={editing}
        can={can}
        adding={picked.adding}
        ha={ha}
        statusLabel={w.colors.statusLabel}
        onClose={() => void actions.closePanel()}
        onSelectSeveral={() => picked.setAdding(true)}
        onDelete={() => actions.remove(selected.id)}
      />
    );
  const totalArea = features.reduce((s, f) => s + f.properties.area, 0);
  return <SummaryPanel loaded={data.loaded} loadFailed={data.loadFailed} count={features.length} totalArea={ha(totalArea)} can={can} onRetry={() => void data.retryLoad()} />;
}
