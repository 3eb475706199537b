'use client';
import { useRouter } from 'next/navigation';
import { TaskProgress, useTask } from '../uploads/progress';

/**
 * A scan still being processed, followed on its field's page: the task's step and percent, and the
 * page shown again with the finished scan (or its error) once the task ends.
 */
export function ScanProgress({ taskId }: { taskId: string }) {
  const router = useRouter();
  const { task } = useTask(taskId, () => router.refresh());
  return <TaskProgress task={task} />;
}
