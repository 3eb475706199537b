// How a task is answered: status, progress text in the user's language, percent, result, error.
import { translate } from '../i18n/messages';
import type { Locale } from '../i18n/locales';

interface TaskRow {
  id: string;
  kind: string;
  status: string;
  progress: string | null;
  percent: number;
  resultJson: string | null;
  error: string | null;
}

export function taskErrorText(error: string | null, locale: Locale): string | null {
  if (!error) return null;
  try {
    const { key, params } = JSON.parse(error) as { key: string; params?: Record<string, string | number> };
    return translate(locale, `errors.${key}`, params ?? {});
  } catch {
    return error;
  }
}

export const progressText = (step: string | null, locale: Locale) => (step ? translate(locale, `tasks.step.${step}`) : null);

/** The step a task is at before its job reports one: queued, or the kind's first step once taken. */
export function currentStep(t: Pick<TaskRow, 'kind' | 'status' | 'progress'>): string | null {
  if (t.progress) return t.progress;
  if (t.status === 'pending') return 'queued';
  if (t.status === 'running') return t.kind === 'drone' ? 'stitching' : 'reading';
  return null;
}

export function taskView(t: TaskRow, locale: Locale) {
  return {
    task_id: t.id,
    status: t.status,
    progress: progressText(currentStep(t), locale),
    percent: t.percent,
    result: t.resultJson ? (JSON.parse(t.resultJson) as Record<string, unknown>) : null,
    error: taskErrorText(t.error, locale),
  };
}
