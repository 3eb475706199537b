// Crop classifier accuracy on the labelled set of lib/drone/crop-set.ts (how it is built is written
// there): overall and per condition, per crop, the confusion matrix, and the calibration of the
// reported confidence (mean confidence vs accuracy, log-loss). Writes bench/results/crops.json.
// Run: npx tsx bench/eval-crops.ts [fieldsPerCropAndCondition]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyCrop } from '../lib/drone/classify';
import { CROPS } from '../lib/drone/crops';
import { labelledCropSet } from '../lib/drone/crop-set';

const perCrop = Number(process.argv[2] ?? 60);
const set = labelledCropSet(perCrop);
const confusion: Record<string, Record<string, number>> = Object.fromEntries(CROPS.map((c) => [c, Object.fromEntries(CROPS.map((d) => [d, 0]))]));
const byCondition: Record<string, { n: number; correct: number; confidence: number; logLoss: number }> = {};
for (const f of set) {
  const r = classifyCrop(f.input);
  const c = (byCondition[f.condition] ??= { n: 0, correct: 0, confidence: 0, logLoss: 0 });
  c.n++;
  c.correct += r.crop_type === f.crop ? 1 : 0;
  c.confidence += r.confidence;
  c.logLoss -= Math.log(Math.max(1e-9, r.top_candidates.find((t) => t.crop === f.crop)!.score));
  if (f.condition !== 'mixed') confusion[f.crop]![r.crop_type]!++;
}
const conditions = Object.fromEntries(Object.entries(byCondition).map(([k, v]) => [k, {
  fields: v.n, accuracy: +(v.correct / v.n).toFixed(3), meanConfidence: +(v.confidence / v.n).toFixed(3), logLoss: +(v.logLoss / v.n).toFixed(3),
}]));
const perCropAccuracy = Object.fromEntries(CROPS.map((c) => {
  const row = confusion[c]!;
  const total = Object.values(row).reduce((s, v) => s + v, 0);
  return [c, +(row[c]! / total).toFixed(3)];
}));
// Calibration: the softmax temperature with the lowest log-loss over the whole set.
const fit = [1, 1.5, 2, 2.5, 3, 4, 5, 6].map((t) => ({
  temperature: t,
  logLoss: +(set.reduce((s, f) => s - Math.log(Math.max(1e-9, classifyCrop(f.input, t).top_candidates.find((c) => c.crop === f.crop)!.score)), 0) / set.length).toFixed(4),
}));
console.log('temperature fit', fit);
const result = { temperatureFit: fit, date: new Date().toISOString(), fieldsPerCropAndCondition: perCrop, conditions, perCropAccuracy, confusionExcludingMixed: confusion };
console.log(JSON.stringify(conditions, null, 1));
console.log('per crop', perCropAccuracy);
console.log('confusion (rows = truth)');
console.log(['', ...CROPS].map((c) => c.padStart(10)).join(''));
for (const c of CROPS) console.log([c, ...CROPS.map((d) => String(confusion[c]![d]))].map((x) => x.padStart(10)).join(''));
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
writeFileSync(join(import.meta.dirname, 'results', 'crops.json'), JSON.stringify(result, null, 2) + '\n');
