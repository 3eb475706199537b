import { Select } from '@/components/ui/form';
import { Form } from '@/components/ui/validation-messages';

/** What the crop-year chooser writes: its label, its button, its hint, and a year that has no scans. */
export interface CropYearLabels {
  label: string;
  apply: string;
  hint: string;
  noScans: (year: number) => string;
}

/** The crop year the crop breakdown shows, chosen among the years with scans (and the one asked for). */
export function CropYearForm({ year, choices, withScans, labels }: { year: number; choices: number[]; withScans: number[]; labels: CropYearLabels }) {
  return (
    <Form method="get" className="mb-3 flex flex-wrap items-end gap-2 text-sm">
      <div className="w-32">
        <Select label={labels.label} name="year" defaultValue={String(year)}>
          {choices.map((y) => (
            <option key={y} value={y}>
              {withScans.includes(y) ? String(y) : labels.noScans(y)}
            </option>
          ))}
        </Select>
      </div>
      <button type="submit" className="rounded border border-stone-300 px-3 py-1.5 hover:bg-stone-100">
        {labels.apply}
      </button>
      <p className="basis-full text-xs text-stone-600">{labels.hint}</p>
    </Form>
  );
}
