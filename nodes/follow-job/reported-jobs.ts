import { isPlainObject } from '../../lib/guards';

/** How long, and how many, reported jobs are remembered: longer than a schedule's replay period (2 minutes). */
const REPORTED_MS = 10 * 60_000;
const REPORTED_MAX = 1000;

export interface ReportedRecord {
  key: string;
  jobId: string;
  at: number;
}

/**
 * The jobs reported lately, by the idempotency key of their message: a
 * schedule replays its recent ends after a restart (msg.replay), and a
 * replay of a follow-up already reported is not reported twice.
 */
export class ReportedJobs {
  private readonly byKey = new Map<string, { jobId: string; at: number }>();

  get size(): number {
    return this.byKey.size;
  }

  jobOf(key: unknown): string | undefined {
    return typeof key === 'string' ? this.byKey.get(key)?.jobId : undefined;
  }

  /** Notes the keys of a job's messages as reported; the oldest beyond the limits are forgotten. */
  note(keys: (string | undefined)[], jobId: string): void {
    const now = Date.now();
    for (const key of keys) if (key !== undefined) this.byKey.set(key, { jobId, at: now });
    for (const [key, r] of this.byKey) {
      if (this.byKey.size > REPORTED_MAX || now - r.at > REPORTED_MS) this.byKey.delete(key);
      else break;
    }
  }

  /** The records still within their time, for the node context; undefined when none. */
  records(): ReportedRecord[] | undefined {
    const now = Date.now();
    const out = [...this.byKey].filter(([, r]) => now - r.at <= REPORTED_MS);
    return out.length > 0 ? out.map(([key, r]) => ({ key, jobId: r.jobId, at: r.at })) : undefined;
  }

  /** Takes back records from the context or a predecessor; anything malformed is skipped. */
  restore(value: unknown): void {
    if (!Array.isArray(value)) return;
    for (const r of value) {
      if (isPlainObject(r) && typeof r.key === 'string' && typeof r.jobId === 'string' && typeof r.at === 'number') {
        this.byKey.set(r.key, { jobId: r.jobId, at: r.at });
      }
    }
  }
}
