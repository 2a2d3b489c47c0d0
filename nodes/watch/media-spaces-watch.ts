import { idSegment, uuidSegment } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import type { WorkflowJob } from '../../lib/schemas';
import {
  JobFollower,
  type JobWaiter,
  type PersistedJob,
  toSerializable,
  WatchError,
  WorkflowActiveWaiter,
  type WorkflowChange,
  WorkflowWatcher,
} from '../../lib/watch';
import { asMediaSpacesError, type ErrorDetails, failMessage as endWithError } from '../shared/failure';
import { given, invalid, textValue, wholeNumber } from '../shared/message-fields';
import type { DoneFunction, Node, NodeAPI, NodeDef, NodeMessage, NodeStatus } from '../shared/node-red-types';
import { Handover } from '../shared/node-state';
import { clientFor } from '../shared/server-client';
import { StatusBoard } from '../shared/status-board';

/**
 * media-spaces-watch: polling over the Media Spaces client, in one of three
 * modes (the `mode` property):
 * - `workflows`: polls the workflow list and emits one message per added,
 *   changed or removed workflow (output 1); an input forces a poll and comes
 *   back on output 2 with the whole list;
 * - `workflow-active`: holds each input until its workflow is active, then
 *   passes it on (output 1);
 * - `job`: follows each input's job until a terminal state: progress on
 *   output 2, succeeded on output 1, failed/stopped as done(err).
 * The logic lives in lib/watch; this file only maps messages, status and
 * context onto it.
 */
const MODES = ['workflows', 'workflow-active', 'job'] as const;
type Mode = (typeof MODES)[number];

/** Node context key of the followed-job set (job mode). */
const CONTEXT_KEY = 'mediaSpacesFollowedJobs';

const handover = new Handover<PersistedJob[]>();

/**
 * Node context key of the jobs reported lately (job mode), by the idempotency
 * key of their message: a schedule replays its recent ends after a restart
 * (msg.replay), and a replay of a follow-up already reported is not reported
 * twice. Kept longer than the schedule's replay period (2 minutes).
 */
const REPORTED_KEY = 'mediaSpacesReportedJobs';
const REPORTED_MS = 10 * 60_000;
const REPORTED_MAX = 1000;
type Reported = Map<string, { jobId: string; at: number }>;
const reportedHandover = new Map<string, Reported>();

interface NodeContext {
  get(key: string, callback: (err: Error | null | undefined, value?: unknown) => void): void;
  set(key: string, value: unknown, callback?: (err?: Error | null) => void): void;
}

/** One message (or an array of messages) per output; null for none. */
type Outputs = (NodeMessage | NodeMessage[] | null)[];
type Send = (out: Outputs) => void;

type WatchNode = Node & {
  context(): NodeContext;
  error(error: unknown, msg?: NodeMessage): void;
  send(out: Outputs): void;
};

/** The live side of an input message: how to answer it. Absent after a restart. */
interface Handle {
  msg: NodeMessage;
  send: Send;
  done: DoneFunction;
}

interface Settings {
  mode: Mode;
  intervalMs: number;
  backoffMaxMs: number;
  concurrency: number;
  /** undefined: the mode's default (job: none; workflow-active: 10 minutes); 0: none. */
  timeoutMs: number | undefined;
  status: string | undefined;
  emitInitial: boolean;
  workflow: string;
}

export = function register(RED: NodeAPI): void {
  function MediaSpacesWatchNode(this: WatchNode, def: NodeDef): void {
    RED.nodes.createNode(this, def);
    const warnings: string[] = [];
    const settings = readSettings(def, warnings);
    for (const w of warnings) this.warn(`media-spaces-watch: ${w}`);
    const status = new StatusBoard(this);
    const client = () => clientFor(RED, def.server, 'workflow');
    const timing = { intervalMs: settings.intervalMs, backoffMaxMs: settings.backoffMaxMs };
    let closed = false;
    const closers: ((removed: boolean) => Promise<void> | void)[] = [];

    /** Ends one message with an error: done(err) for a live input, node.error for a resumed one. */
    const failMessage = (msg: NodeMessage, error: unknown, done?: DoneFunction) => {
      endWithError(this, msg, errorDetails(error), done);
    };

    if (settings.mode === 'workflows') {
      const watcher = new WorkflowWatcher({
        ...timing,
        emitInitial: settings.emitInitial,
        list: (signal) => client().listAllWorkflows({ status: settings.status, signal }),
        onChanges: (changes) => {
          this.send([changes.map(changeMessage), null]);
        },
        onPoll: (result) => status.set(pollStatus(result.workflows.length, result.changes.length)),
        onError: (error, info) => {
          const failure = asMediaSpacesError(error, 'Watch workflows');
          const code = errorLabel(failure);
          if (info.transient) {
            status.set({ fill: 'red', shape: 'ring', text: `${code}, retry in ${seconds(info.retryInMs ?? 0)}` });
            if (info.errors === 1) this.warn(`Watch workflows: ${failure.message}; retrying`);
            return;
          }
          status.set({ fill: 'red', shape: 'ring', text: `${code}, stopped` });
          const msg: NodeMessage = { topic: 'error', payload: null };
          failMessage(msg, failure);
        },
      });
      watcher.start();
      this.on('input', (msg, send, done) => {
        watcher.pollNow().then(
          (result) => {
            if (closed) return;
            msg.payload = result.workflows;
            msg.changes = result.changes;
            msg.statusCode = 200;
            (send as Send)([null, msg]);
            done();
          },
          (error) => {
            if (closed) return;
            const failure = asMediaSpacesError(error, 'Watch workflows');
            status.set({ fill: 'red', shape: 'ring', text: errorLabel(failure) });
            failMessage(msg, failure, done);
          },
        );
      });
      closers.push(() => watcher.close());
    }

    if (settings.mode === 'workflow-active') {
      const waiter = new WorkflowActiveWaiter<Handle>({
        ...timing,
        timeoutMs: settings.timeoutMs,
        list: (signal) => client().listAllWorkflows({ signal }),
        onActive: (workflow, h) => {
          h.msg.workflow = workflow;
          h.msg.workflow_id = workflow.id;
          h.send([h.msg, null]);
          h.done();
          status.set(
            waiting(waiter.size, { fill: 'green', shape: 'dot', text: `active: ${workflow.name ?? workflow.id}` }),
          );
        },
        onFail: (error, h) => {
          status.set(waiting(waiter.size, { fill: 'red', shape: 'ring', text: errorLabel(error) }));
          failMessage(h.msg, error, h.done);
        },
        onRetry: (error, delayMs) => {
          const text = `${errorLabel(asMediaSpacesError(error, 'Wait for workflow'))}, retry in ${seconds(delayMs)}`;
          status.set({ fill: 'red', shape: 'ring', text });
        },
      });
      this.on('input', (msg, send, done) => {
        try {
          const workflow = workflowRef(msg, settings);
          const timeoutMs = given(msg, 'timeout') ? timeoutValue('msg.timeout', msg.timeout) : settings.timeoutMs;
          waiter.wait({ workflow, timeoutMs, handle: { msg, send: send as Send, done } });
          status.set(waiting(waiter.size));
        } catch (error) {
          status.set({ fill: 'red', shape: 'ring', text: errorLabel(error) });
          failMessage(msg, error, done);
        }
      });
      closers.push(() => waiter.close());
    }

    if (settings.mode !== 'job') {
      // jobs followed before the mode changed are abandoned
      handover.drop(this.id);
      try {
        this.context().set(CONTEXT_KEY, undefined);
        this.context().set(REPORTED_KEY, undefined);
      } catch {
        // nothing was stored
      }
    }

    if (settings.mode === 'job') {
      const context = this.context();
      let loaded = false;
      let last: NodeStatus | undefined;
      const following = (): NodeStatus | undefined => {
        const n = follower.size;
        return n > 0 ? { fill: 'blue', shape: 'dot', text: `following ${n} job${n === 1 ? '' : 's'}` } : undefined;
      };
      const show = (outcome?: NodeStatus) => {
        if (outcome) last = outcome;
        status.set(following() ?? last ?? {});
      };
      const reported: Reported = new Map();
      const noteReported = (waiters: JobWaiter<Handle>[], jobId: string) => {
        const now = Date.now();
        for (const w of waiters) if (w.key !== undefined) reported.set(w.key, { jobId, at: now });
        for (const [key, r] of reported) {
          if (reported.size > REPORTED_MAX || now - r.at > REPORTED_MS) reported.delete(key);
          else break;
        }
      };
      const reportedRecords = () => {
        const now = Date.now();
        const out = [...reported].filter(([, r]) => now - r.at <= REPORTED_MS);
        return out.length > 0 ? out.map(([key, r]) => ({ key, jobId: r.jobId, at: r.at })) : undefined;
      };
      const restoreReported = (value: unknown) => {
        if (!Array.isArray(value)) return;
        for (const r of value) {
          if (
            isPlainObject(r) &&
            typeof r.key === 'string' &&
            typeof r.jobId === 'string' &&
            typeof r.at === 'number'
          ) {
            reported.set(r.key, { jobId: r.jobId, at: r.at });
          }
        }
      };
      const messageOf = (w: JobWaiter<Handle>): NodeMessage =>
        w.handle ? w.handle.msg : isPlainObject(w.data) ? (w.data as NodeMessage) : {};
      const sendOf = (w: JobWaiter<Handle>) => (out: Outputs) => (w.handle ? w.handle.send(out) : this.send(out));

      const follower: JobFollower<Handle> = new JobFollower<Handle>({
        ...timing,
        concurrency: settings.concurrency,
        timeoutMs: settings.timeoutMs ?? 0,
        // saves at most once a second (or once per interval when shorter)
        persistDelayMs: Math.min(1000, settings.intervalMs),
        getJob: async (workflowId, jobId, signal) => (await client().getJob(workflowId, jobId, { signal })).data,
        onProgress: (job, entry) => {
          for (const w of entry.waiters) {
            const base = messageOf(w);
            const msg = RED.util.cloneMessage(base);
            describeJob(msg, job, entry.workflowId);
            sendOf(w)([null, msg]);
          }
          show();
        },
        onDone: (job, entry) => {
          const state = String(job.state ?? '').toLowerCase();
          noteReported(entry.waiters, entry.jobId);
          for (const w of entry.waiters) {
            const msg = messageOf(w);
            describeJob(msg, job, entry.workflowId);
            if (state === 'succeeded') {
              sendOf(w)([msg, null]);
              w.handle?.done();
            } else {
              failMessage(msg, jobFailure(job, entry.workflowId), w.handle?.done);
            }
          }
          show(
            state === 'succeeded'
              ? { fill: 'green', shape: 'dot', text: `succeeded: ${job.name ?? job.id}` }
              : { fill: 'red', shape: 'ring', text: `${state}: ${job.name ?? job.id}` },
          );
        },
        onError: (error, waiters, entry) => {
          noteReported(waiters, entry.jobId);
          for (const w of waiters) {
            const msg = messageOf(w);
            msg.job_id = entry.jobId;
            msg.workflow_id = entry.workflowId;
            failMessage(msg, error, w.handle?.done);
          }
          show({ fill: 'red', shape: 'ring', text: errorLabel(error) });
        },
        onRetry: (error, _entry, delayMs) => {
          const text = `${errorLabel(asMediaSpacesError(error, 'Get job'))}, retry in ${seconds(delayMs)}`;
          status.set({ fill: 'red', shape: 'ring', text: `following ${follower.size}; ${text}` });
        },
        onPersist: (records) => {
          if (!loaded || closed) return;
          context.set(CONTEXT_KEY, records.length > 0 ? records : undefined, () => undefined);
          context.set(REPORTED_KEY, reportedRecords(), () => undefined);
        },
      });

      // resume what the previous instance of this node was following
      const finishLoading = (value: unknown) => {
        if (loaded || closed) return;
        loaded = true;
        const resumed = follower.resume(value);
        if (resumed > 0) this.log(`resuming ${resumed} followed job${resumed === 1 ? '' : 's'}`);
        follower.flush();
        show();
      };
      const handed = handover.take(this.id);
      const handedReported = reportedHandover.get(this.id);
      reportedHandover.delete(this.id);
      if (handed !== undefined || handedReported !== undefined) {
        for (const [key, r] of handedReported ?? []) reported.set(key, r);
        finishLoading(handed);
      } else {
        try {
          context.get(REPORTED_KEY, (err, value) => {
            if (!err) restoreReported(value);
            context.get(CONTEXT_KEY, (err2, records) => finishLoading(err2 ? undefined : records));
          });
        } catch {
          finishLoading(undefined);
        }
      }

      this.on('input', (msg, send, done) => {
        try {
          const ref = jobRef(msg);
          const timeoutMs = given(msg, 'timeout') ? timeoutValue('msg.timeout', msg.timeout) : settings.timeoutMs;
          const earlier = typeof msg.idempotency_key === 'string' ? reported.get(msg.idempotency_key) : undefined;
          if (msg.replay === true && earlier?.jobId === ref.jobId) {
            // a schedule's end replayed after a restart, for a job this node already reported
            this.debug(`job ${ref.jobId} was reported before the restart; replay of ${msg.idempotency_key} ignored`);
            done();
            return;
          }
          follower.follow({
            jobId: ref.jobId,
            workflowId: ref.workflowId,
            job: ref.known,
            data: toSerializable(msg),
            handle: { msg, send: send as Send, done },
            timeoutMs: timeoutMs === 0 ? undefined : timeoutMs,
            deadline: timeoutMs === 0 ? null : undefined,
            // a submission replayed after a restart (same idempotency key) takes over the resumed waiter
            key: typeof msg.idempotency_key === 'string' ? msg.idempotency_key : undefined,
          });
          show();
        } catch (error) {
          status.set({ fill: 'red', shape: 'ring', text: errorLabel(error) });
          failMessage(msg, error, done);
        }
      });
      closers.push(
        (removed) =>
          new Promise<void>((resolve) => {
            // a removed node forgets its jobs; a redeployed one saves them for its successor
            const records = loaded ? follower.snapshot() : [];
            follower.close({ persist: false });
            if (!removed) {
              if (records.length > 0) handover.keep(this.id, records);
              if (reported.size > 0) reportedHandover.set(this.id, new Map(reported));
              if (!loaded) {
                resolve();
                return;
              }
              try {
                context.set(REPORTED_KEY, reportedRecords());
                context.set(CONTEXT_KEY, records.length > 0 ? records : undefined, () => resolve());
              } catch {
                resolve();
              }
              return;
            }
            handover.drop(this.id);
            reportedHandover.delete(this.id);
            try {
              context.set(REPORTED_KEY, undefined);
              context.set(CONTEXT_KEY, undefined, () => resolve());
            } catch {
              resolve();
            }
          }),
      );
    }

    this.on('close', (removed, done) => {
      closed = true;
      status.close();
      Promise.allSettled(closers.map((c) => Promise.resolve().then(() => c(removed)))).then(
        () => done(),
        () => done(),
      );
    });
  }

  RED.nodes.registerType('media-spaces-watch', MediaSpacesWatchNode);
};

// ------------------------------------------------------------------ settings

function readSettings(def: NodeDef, warnings: string[]): Settings {
  const mode: Mode = (MODES as readonly unknown[]).includes(def.mode) ? (def.mode as Mode) : 'job';
  if (def.mode !== undefined && def.mode !== mode) warnings.push(`unknown mode "${String(def.mode)}", using "job"`);
  const number = (name: string, value: unknown, fallback: number, min: number): number => {
    if (value === undefined || value === null || value === '') return fallback;
    try {
      const n = wholeNumber(name, value);
      if (n >= min) return n;
    } catch {
      // reported below
    }
    warnings.push(`${name} must be a whole number of at least ${min}, using ${fallback}`);
    return fallback;
  };
  const intervalMs = number('interval', def.interval, 5000, 1);
  const backoffMaxMs = Math.max(intervalMs, number('backoffMax', def.backoffMax, Math.max(60_000, intervalMs), 1));
  const concurrency = number('concurrency', def.concurrency, 8, 1);
  const timeoutMs =
    def.timeout === undefined || def.timeout === null || def.timeout === ''
      ? undefined
      : number('timeout', def.timeout, 0, 0);
  const status = typeof def.statusFilter === 'string' && def.statusFilter !== '' ? def.statusFilter : undefined;
  return {
    mode,
    intervalMs,
    backoffMaxMs,
    concurrency,
    timeoutMs,
    status,
    emitInitial: def.emitInitial === true || def.emitInitial === 'true',
    workflow: typeof def.workflow === 'string' ? def.workflow.trim() : '',
  };
}

function timeoutValue(property: string, value: unknown): number {
  const n = wholeNumber(property, value);
  if (n < 0) throw invalid(property, 'must be 0 (no timeout) or a positive number of ms', value);
  return n;
}

/** The job to follow: msg.job_id / msg.workflow_id, else msg.payload.id / msg.payload.workflow_id. */
function jobRef(msg: NodeMessage): { jobId: string; workflowId: string; known?: Partial<WorkflowJob> } {
  const payload = isPlainObject(msg.payload) ? msg.payload : undefined;
  const rawJobId = given(msg, 'job_id') ? msg.job_id : payload?.id;
  const rawWorkflowId = given(msg, 'workflow_id') ? msg.workflow_id : payload?.workflow_id;
  if (rawJobId === undefined) {
    throw MediaSpacesError.invalidInput(
      'No job to follow: set msg.job_id, or send the job (msg.payload with id and workflow_id, as media-spaces-submit-job outputs it)',
      { job_id: 'is required' },
    );
  }
  if (rawWorkflowId === undefined) {
    throw MediaSpacesError.invalidInput('No workflow for the job: set msg.workflow_id or msg.payload.workflow_id', {
      workflow_id: 'is required',
    });
  }
  const source = given(msg, 'job_id') ? 'msg.job_id' : 'msg.payload.id';
  const jobId = textValue(source, rawJobId);
  idSegment(jobId, 'job_id');
  const workflowId = uuidSegment(rawWorkflowId, 'workflow_id');
  // the payload is the job itself only when its id is this job's (text or number; anything else is not an id)
  const payloadId = payload?.id;
  const sameJob = (typeof payloadId === 'string' || typeof payloadId === 'number') && String(payloadId) === jobId;
  const known = sameJob ? (payload as Partial<WorkflowJob>) : undefined;
  return { jobId, workflowId, known };
}

/** msg.workflow_id (id or name), msg.workflow_name, else the node's workflow setting. */
function workflowRef(msg: NodeMessage, settings: Settings): string {
  for (const property of ['workflow_id', 'workflow_name']) {
    if (given(msg, property) && msg[property] !== null && msg[property] !== '') {
      return textValue(`msg.${property}`, msg[property]).trim();
    }
  }
  if (settings.workflow !== '') return settings.workflow;
  throw MediaSpacesError.invalidInput('No workflow to wait for: set msg.workflow_id, or the workflow in the node', {
    workflow_id: 'is required',
  });
}

// ------------------------------------------------------------------ messages

function changeMessage(change: WorkflowChange): NodeMessage {
  const msg: NodeMessage = { topic: change.type, payload: change.workflow, workflow_id: change.workflow.id };
  if (change.previous !== undefined) msg.previous = change.previous;
  return msg;
}

function describeJob(msg: NodeMessage, job: WorkflowJob, workflowId: string): void {
  msg.payload = job;
  msg.job_id = job.id;
  msg.workflow_id = job.workflow_id ?? workflowId;
  msg.state = job.state;
  if (job.progress === undefined) delete msg.progress;
  else msg.progress = job.progress;
}

function jobFailure(job: WorkflowJob, workflowId: string): WatchError {
  const state = String(job.state ?? '').toLowerCase();
  return new WatchError({
    code: state === 'stopped' ? 'job_stopped' : 'job_failed',
    message: `Job ${job.name ? `"${job.name}" (${job.id})` : job.id} ended in state ${job.state}`,
    details: { state: job.state, jobId: job.id, workflowId: job.workflow_id ?? workflowId },
  });
}

/** msg.error for any failure: the library error record, or the watch outcome with its details. */
function errorDetails(error: unknown): ErrorDetails {
  if (error instanceof WatchError) {
    return { ...error.toJSON(), fieldErrors: {} } as unknown as ErrorDetails;
  }
  return asMediaSpacesError(error, 'Watch').toJSON();
}

function errorLabel(error: unknown): string {
  if (error instanceof WatchError) return error.code;
  if (error instanceof MediaSpacesError)
    return error.status === undefined ? error.code : `${error.status} ${error.code}`;
  return 'error';
}

// ------------------------------------------------------------------ status

function pollStatus(count: number, changes: number): NodeStatus {
  const text = `${count} workflow${count === 1 ? '' : 's'}${changes > 0 ? `, ${changes} change${changes === 1 ? '' : 's'}` : ''}`;
  return { fill: 'green', shape: 'dot', text };
}

function waiting(n: number, outcome?: NodeStatus): NodeStatus {
  if (n > 0) return { fill: 'blue', shape: 'dot', text: `waiting (${n})` };
  return outcome ?? {};
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}
