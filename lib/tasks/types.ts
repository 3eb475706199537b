// The job interface shared by both ways of running background work: worker threads inside the server
// (embedded setup) and BullMQ worker processes (REDIS_URL). A job is pure processing: it gets a
// payload, reports progress, writes its output files into its work folder and returns a result;
// the database is written afterwards, in one transaction, by the task's finisher.

// `rezone`: a completed scan's zones made again from its kept index raster (lib/scans/rezone.ts).
export const TASK_KINDS = ['raster_zones', 'drone', 'rezone'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];
/** Work run in a thread for a request that waits for it, not stored as a task. */
export type JobKind = TaskKind | 'shapefile_rows' | 'boundaries' | 'exports' | 'raster_inspect' | 'photo_metadata';

export type TaskStatus = 'pending' | 'running' | 'completed' | 'error';

export interface JobContext {
  /** Percent 0-100 and a step name (translated when shown: `tasks.step.<step>`). */
  progress(percent: number, step: string): void;
  /** A folder of the task's own for output files; removed when the task fails. */
  workDir: string;
}

export type JobHandler = (payload: unknown, ctx: JobContext) => Promise<unknown>;

/** An error a job reports with a message key (under `errors.`), so it is shown in the user's language. */
export interface TaskErrorInfo {
  key: string;
  params?: Record<string, string | number>;
  /** Deterministic errors (bad input) are not retried; crashes are. */
  final: boolean;
}

export const MAX_ATTEMPTS = 3;
