import type { WorkflowJob } from './schemas';

/**
 * A finished job's run time in seconds: its elapsed_time (the service's
 * TimeSpan text, `h:mm:ss[.f]` or `d.hh:mm:ss[.f]`), else updated_at minus
 * created_at, which the description says it equals; undefined when neither
 * can be read.
 */
export function jobElapsedSeconds(
  job: Pick<WorkflowJob, 'elapsed_time' | 'created_at' | 'updated_at'>,
): number | undefined {
  const span = typeof job.elapsed_time === 'string' ? timeSpanSeconds(job.elapsed_time) : undefined;
  if (span !== undefined) return span;
  const from = Date.parse(job.created_at ?? '');
  const to = Date.parse(job.updated_at ?? '');
  return Number.isFinite(from) && Number.isFinite(to) && to >= from ? (to - from) / 1000 : undefined;
}

const TIME_SPAN = /^(?:(\d+)\.)?(\d+):(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/;

export function timeSpanSeconds(text: string): number | undefined {
  const m = TIME_SPAN.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1] ?? 0) * 86_400 + Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4]);
}
