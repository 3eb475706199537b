import type { FieldPageView } from '@/lib/fields/field-page';
import { baseLayers } from '@/lib/ui/server';
import { Card } from '../ui/form';
import { ExportPanel } from './export-panel';
import type { FieldPageWords } from './field-page-words';

/** The field's flight plan, task data and report, for the scan shown. */
export function FieldExportCard({ fieldId, exports, words }: { fieldId: number; exports: FieldPageView['exports']; words: FieldPageWords }) {
  const { t } = words;
  return (
    <Card title={t('exports.title')}>
      <ExportPanel fieldId={fieldId} scanId={exports.scanId} droneIndex={exports.droneIndex} defaultRates={exports.defaultRates} zoneClasses={exports.zoneClasses} baseLayer={baseLayers()[0]!} />
    </Card>
  );
}
