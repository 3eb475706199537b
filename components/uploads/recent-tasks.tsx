'use client';
import Link from 'next/link';
import { useFormatter, useTranslations } from 'next-intl';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { TaskListItem } from '@/lib/tasks/list';
import { api } from '@/lib/ui/api';
import { afterFailedPoll } from '@/lib/ui/task-poll';
import { ErrorMessage } from '../ui/form';
import { Table, Th } from '../ui/table';
import { TASKS_CHANGED } from './progress';

const unfinished = (t: TaskListItem) => t.status === 'pending' || t.status === 'running';
/** Between questions while the server answers. */
const LIST_POLL_MS = 2000;

/**
 * The company's recent tasks, so that an upload can be followed after leaving the page and a failed
 * one says why. It asks again every two seconds while a task is under way, and at once when this page
 * has sent an upload. A failed question is handled as a task's poll is (lib/ui/task-poll.ts): no
 * answer or a 5xx is asked again, ever later, and said after about half a minute; a refusal (401)
 * stops it and is said at once.
 */
export function RecentTasks({ initial }: { initial: TaskListItem[] }) {
  const t = useTranslations('uploads');
  const { tasks, error } = useRecentTasks(initial);
  if (!tasks.length) return <p className="text-sm text-stone-600">{t('recent.empty')}</p>;
  return (
    <div className="space-y-2">
      <ErrorMessage>{error}</ErrorMessage>
      <Table
        testId="recent-tasks"
        head={
          <>
            <Th>{t('recent.when')}</Th>
            <Th>{t('recent.file')}</Th>
            <Th>{t('field')}</Th>
            <Th>{t('recent.by')}</Th>
            <Th>{t('recent.state')}</Th>
          </>
        }
      >
        {tasks.map((task) => (
          <RecentTaskRow key={task.task_id} task={task} />
        ))}
      </Table>
    </div>
  );
}

/** The list as last answered, and the failure to ask in words: asked again as RecentTasks says. */
function useRecentTasks(initial: TaskListItem[]) {
  const tc = useTranslations('common');
  const [tasks, setTasks] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const failures = useRef(0);
  // The wait before the next question (a new object each answer, to ask again); null: stopped.
  const [wait, setWait] = useState<{ ms: number | null }>({ ms: LIST_POLL_MS });
  const active = tasks.some(unfinished);

  const refresh = useCallback(async () => {
    const res = await api<{ tasks: TaskListItem[] }>('/api/tasks');
    if (res.ok) {
      failures.current = 0;
      setTasks(res.data.tasks);
      setError(null);
      setWait({ ms: LIST_POLL_MS });
      return;
    }
    const next = afterFailedPoll(res.status, ++failures.current);
    // A proxy's HTML 502 or no answer at all carries no message of its own.
    if (next.showError) setError(res.error ?? tc('network_error'));
    setWait({ ms: next.stop ? null : Math.max(LIST_POLL_MS, next.delayMs) });
  }, [tc]);

  useEffect(() => {
    const onChange = () => void refresh();
    window.addEventListener(TASKS_CHANGED, onChange);
    return () => window.removeEventListener(TASKS_CHANGED, onChange);
  }, [refresh]);

  // Each answer (or failure) schedules the next question while something is under way.
  useEffect(() => {
    if (!active || wait.ms === null) return;
    const timer = setTimeout(() => void refresh(), wait.ms);
    return () => clearTimeout(timer);
  }, [active, wait, refresh]);

  return { tasks, error };
}

function RecentTaskRow({ task }: { task: TaskListItem }) {
  const t = useTranslations('uploads');
  const format = useFormatter();
  return (
    <tr className="border-t border-stone-200 align-top" data-testid={`task-${task.task_id}`}>
      <td className="whitespace-nowrap px-2 py-1">{format.dateTime(new Date(task.created_at), 'moment')}</td>
      <td className="px-2 py-1">
        <span className="block break-all">{task.file_name ?? '—'}</span>
        <span className="block text-xs text-stone-600">{t(`recent.kind.${task.kind}`)}</span>
      </td>
      <td className="px-2 py-1">
        {task.field ? (
          <Link href={`/fields/${task.field.id}`} className="text-emerald-800 underline">
            {task.field.name}
          </Link>
        ) : (
          '—'
        )}
      </td>
      <td className="px-2 py-1">{task.created_by?.name ?? '—'}</td>
      <td className="min-w-48 px-2 py-1">
        <TaskState task={task} />
      </td>
    </tr>
  );
}

function TaskState({ task }: { task: TaskListItem }) {
  const t = useTranslations('uploads');
  if (unfinished(task)) {
    return (
      <span className="block space-y-1">
        <span className="flex justify-between gap-2">
          <span>{task.progress ?? t(`task_status.${task.status}`)}</span>
          <span className="tabular-nums">{Math.round(task.percent)}%</span>
        </span>
        <progress className="h-2 w-full accent-emerald-700" max={100} value={task.percent} aria-label={t('task_progress')} />
      </span>
    );
  }
  if (task.status === 'error') return <span className="text-red-800">{task.error ?? t('task_failed')}</span>;
  const zones = typeof task.result?.zones_created === 'number' ? task.result.zones_created : null;
  const fields = typeof task.result?.fields_created === 'number' ? task.result.fields_created : null;
  const ignored = Array.isArray(task.result?.ignored_files) ? (task.result.ignored_files as string[]) : [];
  return (
    <span>
      {zones !== null ? t('zones_created', { count: zones }) : fields !== null ? t('fields_created', { count: fields }) : t('task_status.completed')}
      {task.field && task.scan_id !== null && (
        <>
          {' · '}
          <Link href={`/fields/${task.field.id}?scan=${task.scan_id}`} className="text-emerald-800 underline">
            {t('recent.open_scan')}
          </Link>
        </>
      )}
      {ignored.length > 0 && (
        <span className="mt-1 block text-xs text-stone-600" data-testid="task-ignored">
          {t('drone_ignored', { count: ignored.length, files: ignored.length > MAX_NAMED_FILES ? `${ignored.slice(0, MAX_NAMED_FILES).join(', ')}, …` : ignored.join(', ') })}
        </span>
      )}
    </span>
  );
}

/** A survey may leave out hundreds of thumbnails: the list names the first few. */
const MAX_NAMED_FILES = 5;
