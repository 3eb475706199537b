'use client';
import { useFormatter, useLocale, useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { api, type UploadProgress, uploadForm } from '@/lib/ui/api';
import { POLL_MS, afterFailedPoll } from '@/lib/ui/task-poll';
import { transferAmount } from '@/lib/ui/transfer-amount';
import type { TaskView } from '@/lib/ui/types';

export function UploadBar({ progress }: { progress: UploadProgress | null }) {
  const t = useTranslations('uploads');
  const locale = useLocale();
  if (!progress) return null;
  const share = progress.total ? progress.loaded / progress.total : 0;
  const done = progress.total > 0 && progress.loaded >= progress.total;
  return (
    <div className="space-y-1 text-sm">
      <div className="flex justify-between text-stone-600">
        <span>{done ? t('upload_processing') : t('uploading')}</span>
        <span className="tabular-nums" data-testid="upload-amount">
          {transferAmount(progress.loaded, progress.total, locale)}
        </span>
      </div>
      <progress className="h-2 w-full accent-emerald-700" max={1} value={share} aria-label={t('uploading')} />
    </div>
  );
}

/** Announced on `window` when this page has sent an upload, so that lists of tasks ask again. */
export const TASKS_CHANGED = 'fieldmap:tasks-changed';

/**
 * One upload form's state: the bytes sent, the refusal in words, and whether it is busy (until
 * `done()` for uploads that go on as a task). `send` answers the accepted body, or null when refused.
 */
export function useUpload<T>() {
  const tc = useTranslations('common');
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function send(url: string, form: FormData, size: number, opts: { staysBusy?: boolean } = {}): Promise<T | null> {
    setBusy(true);
    setError(null);
    setProgress({ loaded: 0, total: size });
    const res = await uploadForm<T>(url, form, setProgress);
    setProgress(null);
    // A refused import is listed too (a shapefile's refusal is kept as a failed task).
    if (res.status !== 0) window.dispatchEvent(new Event(TASKS_CHANGED));
    if (!res.ok || !opts.staysBusy) setBusy(false);
    if (!res.ok) {
      setError(res.error ?? tc('network_error'));
      return null;
    }
    return res.data;
  }
  return { progress, error, busy, send, done: () => setBusy(false) };
}

/**
 * Polls GET /api/tasks/{id} until the task completes or fails, then hands over the final state once.
 * `error` is a failed poll in words (a proxy's HTML 502 or no answer has none of its own: the network
 * error); `stopped` is true once a refusal (401, 404) ended the polling, after which the task is no
 * longer followed and nothing should wait for it.
 */
export function useTask(taskId: string | null, onEnd?: (task: TaskView) => void) {
  const tc = useTranslations('common');
  const [task, setTask] = useState<TaskView | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The task whose polling a refusal stopped: a task started after it is followed afresh.
  const [stoppedFor, setStoppedFor] = useState<string | null>(null);
  useEffect(() => {
    if (!taskId) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const poll = async () => {
      const res = await api<TaskView>(`/api/tasks/${taskId}`);
      if (stopped) return;
      if (res.ok) {
        failures = 0;
        setError(null);
        setTask(res.data);
        if (res.data.status === 'completed' || res.data.status === 'error') {
          onEnd?.(res.data);
          return;
        }
      } else {
        const next = afterFailedPoll(res.status, ++failures);
        if (next.showError) setError(res.error ?? tc('network_error'));
        if (next.stop) {
          setStoppedFor(taskId);
          return;
        }
        timer = setTimeout(poll, next.delayMs);
        return;
      }
      timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
    // onEnd is read once per task; re-polling when its identity changes would restart the task view.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [taskId]);
  return { task, error, stopped: taskId !== null && stoppedFor === taskId };
}

export function TaskProgress({ task }: { task: TaskView | null }) {
  const t = useTranslations('uploads');
  const format = useFormatter();
  if (!task) return null;
  const running = task.status === 'pending' || task.status === 'running';
  const status = t(`task_status.${['pending', 'running', 'completed', 'error'].includes(task.status) ? task.status : 'running'}`);
  // What a screen reader hears, politely: its text changes only with the step, with each quarter of the
  // way and at the end, not with every percent the bar moves. The failure's reason is the form's alert.
  const quarter = Math.min(3, Math.floor(task.percent / 25)) / 4;
  const spoken = running
    ? `${status}${task.progress ? ` — ${task.progress}` : ''}, ${format.number(quarter, { style: 'percent' })}`
    : task.status === 'completed'
      ? t('task_done')
      : t('task_failed');
  return (
    <div className="space-y-1 text-sm" data-testid="task-progress">
      <div className="flex justify-between text-stone-700">
        <span>
          {status}
          {running && task.progress ? ` — ${task.progress}` : ''}
        </span>
        {running && <span className="tabular-nums">{Math.round(task.percent)}%</span>}
      </div>
      {running && <progress className="h-2 w-full accent-emerald-700" max={100} value={task.percent} aria-label={t('task_progress')} />}
      <p role="status" aria-live="polite" className="sr-only" data-testid="task-announcement">
        {spoken}
      </p>
    </div>
  );
}
