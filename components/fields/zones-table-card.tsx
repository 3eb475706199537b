import type { ChosenScan } from '@/lib/fields/field-page';
import { Card } from '../ui/form';
import { Table, Th } from '../ui/table';
import type { FieldPageWords } from './field-page-words';
import { RezoneForm } from './rezone-form';

// As the scan records them: to the hundredth of a hectare.
const LEFT_OUT_HA = { minimumFractionDigits: 2, maximumFractionDigits: 2 };

/** A share of the field, to a tenth of a percent. */
const shareOf = (format: FieldPageWords['format'], v: number) => format.number(v, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** The chosen scan's management zones with their area and share of the field, and the form that makes them again. */
export function ZonesTableCard({ scan, canRezone, words }: { scan: Pick<ChosenScan, 'id' | 'zones' | 'rezone' | 'zoning'>; canRezone: boolean; words: FieldPageWords }) {
  const { t } = words;
  return (
    <Card title={t('report.zones')}>
      {scan.zoning && <ZoningNotes zoning={scan.zoning} words={words} />}
      {scan.zones.rows.length > 0 ? <ZonesTable zones={scan.zones} words={words} /> : <p className="text-sm text-stone-600">{t('report.no_zones')}</p>}
      {canRezone && <RezoneForm key={scan.id} scanId={scan.id} zones={scan.rezone.zones} method={scan.rezone.method} minZoneAreaHa={scan.rezone.minZoneAreaHa} maskWater={scan.rezone.maskWater} underWay={scan.rezone.underWay} />}
    </Card>
  );
}

/**
 * How the zones were made, so that zones made again with other settings can be told apart; what no
 * zone covers and why, so an agronomist can see it and undo it (re-zone without leaving water out);
 * and why fewer were made than asked.
 */
function ZoningNotes({ zoning, words: { t, format } }: { zoning: NonNullable<ChosenScan['zoning']>; words: FieldPageWords }) {
  const min = format.number(zoning.minZoneAreaHa, { maximumFractionDigits: 4 });
  return (
    <>
      <p className="mb-2 text-sm text-stone-600" data-testid="zones-made-with">
        {t('field.zones_made_with', { method: t(`uploads.methods.${zoning.method}`), zones: zoning.made ?? zoning.asked, min })}
      </p>
      {zoning.waterHa !== null && zoning.noDataHa !== null && (
        <p className="mb-2 text-sm text-stone-600" data-testid="zones-left-out">
          {t('field.zones_left_out', { water: format.number(zoning.waterHa, LEFT_OUT_HA), nodata: format.number(zoning.noDataHa, LEFT_OUT_HA) })}
        </p>
      )}
      {zoning.short && zoning.made !== null && (
        <p className="mb-2 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="zones-short">
          {t(`field.zones_short_${zoning.short}`, { made: zoning.made, asked: zoning.asked, min })}
        </p>
      )}
    </>
  );
}

function ZonesTable({ zones: { rows, unzoned }, words }: { zones: ChosenScan['zones']; words: FieldPageWords }) {
  const { t, format, indexValue } = words;
  return (
    <Table
      testId="zones-table"
      foot={unzoned ? <UnzonedCells unzoned={unzoned} words={words} /> : undefined}
      head={
        <>
          <Th>{t('report.zone_class')}</Th>
          <Th>{t('report.zone_name')}</Th>
          <Th figures>{t('report.zone_area')}</Th>
          <Th figures>{t('report.zone_share_field')}</Th>
          <Th figures>{t('report.zone_mean')}</Th>
        </>
      }
    >
      {rows.map((z) => (
        <tr key={z.id} className="border-t border-stone-200">
          <td className="px-2 py-1">
            <span className="mr-1 inline-block h-3 w-3 rounded-sm align-middle" style={{ background: z.color ?? undefined }} />
            {z.class}
          </td>
          <td className="px-2 py-1">{z.name}</td>
          <td className="px-2 py-1 text-right tabular-nums">{format.number(z.areaHa, 'hectares')}</td>
          <td className="px-2 py-1 text-right tabular-nums">{shareOf(format, z.share)}</td>
          <td className="px-2 py-1 text-right tabular-nums">{indexValue(z.mean)}</td>
        </tr>
      ))}
    </Table>
  );
}

/** The foot row's cells: the ground no zone covers, set apart below the zones. It is no zone, though an ISOXML prescription spreads on it. */
function UnzonedCells({ unzoned, words: { t, format } }: { unzoned: NonNullable<ChosenScan['zones']['unzoned']>; words: FieldPageWords }) {
  return (
    <>
      <td className="px-2 py-1 text-amber-900">
        <span className="mr-1 inline-block h-3 w-3 rounded-sm border border-stone-400 align-middle" />—
      </td>
      <td className="px-2 py-1 text-amber-900" data-testid="zones-unzoned">
        {t('report.zone_unzoned')}
      </td>
      <td className="px-2 py-1 text-right tabular-nums text-amber-900">{format.number(unzoned.areaHa, 'hectares')}</td>
      <td className="px-2 py-1 text-right tabular-nums text-amber-900">{shareOf(format, unzoned.share)}</td>
      <td className="px-2 py-1 text-right tabular-nums text-amber-900">—</td>
    </>
  );
}
