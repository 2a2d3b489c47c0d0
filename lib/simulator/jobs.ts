import type { JobState } from '../schemas';
import type { JobRecord } from './state';
import { formatTimeSpan, isoTime } from './timespan';

/** A job stays `created` this long before it starts processing. */
const JOB_START_DELAY_MS = 500;

/**
 * The job as the service reports it at `now`. State is derived from the
 * clock rather than stored, so no timers run and advancing the clock is all a
 * test needs: created -> in-process (progress rising linearly over the
 * workflow's job_duration_ms) -> the workflow's outcome.
 */
export function jobView(job: JobRecord, now: number) {
  const def = job.workflow.def;
  const startAt = job.createdAt + JOB_START_DELAY_MS;
  const endAt = startAt + def.job_duration_ms;
  let state: JobState;
  let progress: number;
  let updatedAt: number;
  if (now < startAt) {
    state = 'created';
    progress = 0;
    updatedAt = job.createdAt;
  } else if (now < endAt) {
    state = 'in-process';
    progress = Math.floor(((now - startAt) * 100) / def.job_duration_ms);
    // The job was last touched by its latest progress report, i.e. now.
    updatedAt = now;
  } else {
    state = def.outcome;
    progress = 100;
    updatedAt = endAt;
  }
  const terminal = state === 'succeeded' || state === 'failed' || state === 'stopped';
  return {
    id: job.id,
    name: job.name,
    workflow_id: def.id,
    workflow_name: def.name,
    progress,
    state,
    workflow_version: def.version,
    created_at: isoTime(job.createdAt),
    updated_at: isoTime(updatedAt),
    elapsed_time: terminal ? formatTimeSpan(updatedAt - job.createdAt) : null,
  };
}
