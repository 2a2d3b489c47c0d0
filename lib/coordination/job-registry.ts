import type { RedisConnection } from './connection';
import { checkName, jobKeys, jobsKey, normalizeKeyPrefix } from './keys';
import { encodeJson, parseJson, replyArray, replyText } from './records';
import { HEARTBEAT_JOBS, REGISTER_JOB, RELEASE_JOB, REPORT_ONCE, TAKE_OVER_JOBS } from './scripts';

/** A followed job as Redis keeps it (one field of the `jobs` hash). */
export interface JobRecord {
  jobId: string;
  workflowId?: string;
  /** Anything else the follower needs to resume following (JSON). */
  meta?: Record<string, unknown>;
  owner: string;
  /** Epoch ms on the Redis clock; after it, any instance may take the job over. */
  heartbeatUntil: number;
  registeredAt: number;
  /** Set when this record was taken from another instance. */
  previousOwner?: string;
}

export interface JobReport {
  /** The terminal state, e.g. `completed`, `failed`, `canceled`. */
  state: string;
  instance: string;
  reportedAt: string;
  result?: unknown;
}

export type RegisterResult =
  | { status: 'registered'; record: JobRecord }
  /** Another instance follows it and its heartbeat is live: do not follow. */
  | { status: 'owned'; record: JobRecord }
  /** Its terminal state was already reported: nothing left to follow. */
  | { status: 'reported'; report: JobReport };

export interface JobRegistryOptions {
  connection: RedisConnection;
  instanceId: string;
  keyPrefix?: string;
  /** How long an owner's heartbeat holds (default 30 s); heartbeat() at a third of it. */
  heartbeatMs?: number;
  /** How long "reported" markers live (default 7 days). */
  reportedTtlMs?: number;
}

const DEFAULT_HEARTBEAT_MS = 30_000;
const DEFAULT_REPORTED_TTL_MS = 7 * 24 * 3600_000;
const MAX_TAKE_OVER = 1000;

/**
 * Followed jobs shared by instances: each job has one owner that polls it and
 * keeps a heartbeat; jobs whose owner's heartbeat ran out are taken over; the
 * terminal state is reported by exactly one instance (reportOnce).
 */
export class JobRegistry {
  readonly #connection: RedisConnection;
  readonly instanceId: string;
  readonly #prefix: string;
  readonly heartbeatMs: number;
  readonly #reportedTtlMs: number;

  constructor(options: JobRegistryOptions) {
    this.#connection = options.connection;
    this.instanceId = checkName('instanceId', options.instanceId);
    this.#prefix = normalizeKeyPrefix(options.keyPrefix);
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.#reportedTtlMs = options.reportedTtlMs ?? DEFAULT_REPORTED_TTL_MS;
  }

  /** Starts following a job, unless a live owner has it or it was already reported. */
  async register(job: { jobId: string; workflowId?: string; meta?: Record<string, unknown> }): Promise<RegisterResult> {
    const keys = jobKeys(this.#prefix, job.jobId);
    const record = encodeJson('job', { jobId: job.jobId, workflowId: job.workflowId, meta: job.meta });
    const reply = replyArray(
      await this.#connection.evalScript(
        REGISTER_JOB,
        [keys.jobs, keys.reported],
        [this.instanceId, job.jobId, record, String(this.heartbeatMs)],
      ),
    );
    const status = replyText(reply[0]);
    if (status === 'reported') return { status, report: parseReport(reply[1]) };
    const parsed = parseRecord(reply[1], job.jobId);
    return status === 'owned' ? { status: 'owned', record: parsed } : { status: 'registered', record: parsed };
  }

  /** Extends our heartbeat on these jobs; `lost` lists those now owned by someone else, reported or gone. */
  async heartbeat(jobIds: string[]): Promise<{ kept: string[]; lost: string[] }> {
    if (jobIds.length === 0) return { kept: [], lost: [] };
    for (const id of jobIds) checkName('job id', id);
    const reply = replyArray(
      await this.#connection.evalScript(
        HEARTBEAT_JOBS,
        [jobsKey(this.#prefix)],
        [this.instanceId, String(this.heartbeatMs), ...jobIds],
      ),
    );
    return { kept: replyArray(reply[0]).map(replyText), lost: replyArray(reply[1]).map(replyText) };
  }

  /** Takes every job whose owner's heartbeat ran out; we own them from now on and should follow them. */
  async takeOver(): Promise<JobRecord[]> {
    const reply = replyArray(
      await this.#connection.evalScript(
        TAKE_OVER_JOBS,
        [jobsKey(this.#prefix)],
        [this.instanceId, String(this.heartbeatMs), String(MAX_TAKE_OVER)],
      ),
    );
    return reply.map((raw) => parseRecord(raw, ''));
  }

  /**
   * Records the job's terminal state once for all instances. `won` true: this
   * caller is the one that reports (sends the message); false: someone did,
   * and `report` is theirs. The job leaves the registry either way.
   */
  async reportOnce(jobId: string, state: string, result?: unknown): Promise<{ won: boolean; report: JobReport }> {
    const keys = jobKeys(this.#prefix, jobId);
    const mine: JobReport = {
      state: checkName('state', state),
      instance: this.instanceId,
      reportedAt: new Date().toISOString(),
      result,
    };
    const reply = replyArray(
      await this.#connection.evalScript(
        REPORT_ONCE,
        [keys.jobs, keys.reported],
        [jobId, encodeJson('result', mine), String(this.#reportedTtlMs)],
      ),
    );
    return { won: replyText(reply[0]) === 'won', report: parseReport(reply[1]) };
  }

  /** Stops following a job without reporting (only if we own it). */
  async release(jobId: string): Promise<boolean> {
    const keys = jobKeys(this.#prefix, jobId);
    return Number(await this.#connection.evalScript(RELEASE_JOB, [keys.jobs], [this.instanceId, jobId])) === 1;
  }

  async get(jobId: string): Promise<JobRecord | undefined> {
    const keys = jobKeys(this.#prefix, jobId);
    const raw = await this.#connection.send(['HGET', keys.jobs, jobId]);
    return raw === null || raw === undefined ? undefined : parseRecord(raw, jobId);
  }

  async getReport(jobId: string): Promise<JobReport | undefined> {
    const raw = await this.#connection.send(['GET', jobKeys(this.#prefix, jobId).reported]);
    return raw === null || raw === undefined ? undefined : parseReport(raw);
  }

  /** Every job in the registry, with its owner. */
  async list(): Promise<JobRecord[]> {
    const flat = replyArray(await this.#connection.send(['HGETALL', jobsKey(this.#prefix)]));
    const records: JobRecord[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) records.push(parseRecord(flat[i + 1], replyText(flat[i])));
    return records;
  }
}

function parseRecord(raw: unknown, jobId: string): JobRecord {
  const parsed = parseJson<JobRecord>(replyText(raw));
  return parsed && typeof parsed === 'object'
    ? parsed
    : { jobId, owner: 'unknown', heartbeatUntil: 0, registeredAt: 0 };
}

function parseReport(raw: unknown): JobReport {
  const parsed = parseJson<JobReport>(replyText(raw));
  return parsed && typeof parsed === 'object' ? parsed : { state: 'unknown', instance: 'unknown', reportedAt: '' };
}
