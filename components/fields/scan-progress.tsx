'use client';
import { useRouter } from 'next/navigation';
import { ErrorMessage } from '../ui/form';
import { TaskProgress, useTask } from '../uploads/progress';

/**
 * A scan still being processed, followed on its field's page: the task's step and percent, and the
 * page shown again with the finished scan (or its error) once the task ends. A zoning task makes its
 * scan only when it succeeds (`scanless`): when it fails, the reason stays here instead, since the
 * page shown again would hold nothing of it.
 */
export function ScanProgress({ taskId, scanless = false }: { taskId: string; scanless?: boolean }) {
  const router = useRouter();
  const { task, error, stopped } = useTask(taskId, (end) => {
    if (!(scanless && end.status === 'error')) router.refresh();
  });
  return (
    <>
      {/* Once a refusal stopped the polling, the last percent would stand still as if under way. */}
      {!stopped && <TaskProgress task={task} />}
      <ErrorMessage>{error}</ErrorMessage>
      {scanless && task?.status === 'error' && <ErrorMessage>{task.error}</ErrorMessage>}
    </>
  );
}
