import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../lib/client';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { CHANNEL_RECORDING_AFTER_MS } from '../../lib/simulator/channels';
import type { FaultSpecInput } from '../../lib/simulator/faults';
import type { RequestLog, RequestLogEntry } from '../../lib/simulator/request-log';
import { CONFIG_ID, configNode, credentials, DEMO, helper, initRuntime } from '../support/node-red-runtime';
import { type Msg, OutcomeTracker } from './support/outcome-tracker';
import { ProcessWatch } from './support/process-watch';
import { print, table, writeResults } from './support/results';
import { EVERY_NODE, onTab } from './support/runtime-nodes';
import { SIZE_NAME, sized } from './support/suite-size';

/**
 * Faults: a real Node-RED runtime sends MESSAGES messages through the four
 * operation nodes (list workflows, submit job, create channel, delete event)
 * to the simulator while it injects faults into about 20% of the requests:
 * 429 with Retry-After, 500/502/503/504, connections dropped before and after
 * the request was handled, bodies cut off halfway, and latency past the
 * client's timeout (300 ms timeout, 500 ms latency, before and after
 * handling). The config node retries 3 times (the library's backoff, 250 ms
 * doubling). Every message carries msg.idempotency_key.
 *
 * Asserted: every message has exactly one outcome (an output or a
 * Catch-visible error; none lost, none twice); no job or channel is created
 * twice (jobs and channels are counted per name in the simulator); no
 * unhandled rejection or uncaught exception; every error is explained by an
 * injected fault; the retries hide most faults.
 *
 * Figures: printed as a table and written to test/.tmp/reliability/faults.json.
 * Size: 2,000 messages (CI), 10,000 with RELIABILITY_SIZE=long.
 */

const MESSAGES = sized(2_000, 10_000);
/** Messages in flight at once. */
const CONCURRENCY = 32;
const CLIENT_TIMEOUT_MS = 300;
const LATENCY_MS = 500;
const RETRIES = 3;
const TAB = 'faults';
const OPS = ['list', 'submit', 'channel', 'delete'] as const;

/**
 * Share of all requests each fault should hit. Faults of one kind are tried
 * in order and at most one of a kind applies, so each gets the conditional
 * probability that yields its share; kinds are independent. Together about
 * 20% of requests see at least one fault.
 */
const FAULT_MIX: Array<{ share: number; spec: Omit<FaultSpecInput, 'probability'> }> = [
  { share: 0.05, spec: { kind: 'status', status: 429, retry_after: 1 } },
  { share: 0.015, spec: { kind: 'status', status: 500 } },
  { share: 0.02, spec: { kind: 'status', status: 502 } },
  { share: 0.02, spec: { kind: 'status', status: 503 } },
  { share: 0.015, spec: { kind: 'status', status: 504 } },
  // handled, then answered 503: the retry must get the first result replayed, not a second job
  { share: 0.01, spec: { kind: 'status', status: 503, phase: 'after' } },
  { share: 0.015, spec: { kind: 'drop', phase: 'before' } },
  { share: 0.02, spec: { kind: 'drop', phase: 'after' } },
  { share: 0.035, spec: { kind: 'truncate', phase: 'after' } },
  { share: 0.02, spec: { kind: 'latency', latency_ms: LATENCY_MS, phase: 'before' } },
  { share: 0.01, spec: { kind: 'latency', latency_ms: LATENCY_MS, phase: 'after' } },
];

function faultSpecs(): FaultSpecInput[] {
  const taken = new Map<string, number>();
  return FAULT_MIX.map(({ share, spec }) => {
    const before = taken.get(spec.kind) ?? 0;
    taken.set(spec.kind, before + share);
    return { route: '*', ...spec, probability: share / (1 - before) };
  });
}

/** The share of requests with at least one fault, from the mix. */
function expectedFaultRate(): number {
  const perKind = new Map<string, number>();
  for (const { share, spec } of FAULT_MIX) perKind.set(spec.kind, (perKind.get(spec.kind) ?? 0) + share);
  return 1 - [...perKind.values()].reduce((p, s) => p * (1 - s), 1);
}

function flow(sim: Simulator): Record<string, unknown>[] {
  const at = onTab(TAB);
  const ops = OPS.map((op) => `op-${op}`);
  return [
    { id: TAB, type: 'tab', label: 'faults' },
    configNode(sim, { timeout: CLIENT_TIMEOUT_MS, retries: RETRIES }),
    { id: 'op-list', ...at, type: 'media-spaces-list-workflows', server: CONFIG_ID, mode: 'all', wires: [['out']] },
    {
      id: 'op-submit',
      ...at,
      type: 'media-spaces-submit-job',
      server: CONFIG_ID,
      workflowId: DEMO.workflows.transcode,
      workflowIdType: 'str',
      wires: [['out']],
    },
    {
      id: 'op-channel',
      ...at,
      type: 'media-spaces-create-channel',
      server: CONFIG_ID,
      channelName: 'Fault studio',
      tags: 'faults',
      wires: [['out']],
    },
    {
      id: 'op-delete',
      ...at,
      type: 'media-spaces-delete-event',
      server: CONFIG_ID,
      eventId: 'event_id',
      eventIdType: 'msg',
      wires: [['out']],
    },
    { id: 'out', ...at, type: 'helper' },
    { id: 'catcher', ...at, type: 'catch', scope: ops, uncaught: false, wires: [['caught']] },
    { id: 'caught', ...at, type: 'helper' },
  ];
}

interface AdminJob {
  id: string;
  name: string;
}
interface AdminChannel {
  id: string;
  name: string;
}

async function admin<T>(sim: Simulator, path: string): Promise<T> {
  const res = await fetch(`${sim.adminUrl}${path}`);
  if (!res.ok) throw new Error(`admin ${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/**
 * The simulator's request log keeps the last 10,000 requests; the run reads
 * and empties it as it goes (synchronously, so nothing slips between the two).
 */
class LogCollector {
  readonly entries: RequestLogEntry[] = [];
  constructor(private readonly log: RequestLog) {}
  collect(): void {
    const batch = this.log.entries();
    this.log.clear();
    for (const e of batch) this.entries.push(e);
  }
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

let sim: Simulator;
const watch = new ProcessWatch();

beforeAll(async () => {
  initRuntime();
  sim = await startSimulator({ manualClock: true });
});

afterAll(async () => {
  watch.stop();
  await helper.unload();
  await sim.close();
});

describe(`faults (${SIZE_NAME}: ${MESSAGES} messages, ~${Math.round(expectedFaultRate() * 100)}% of requests faulted)`, () => {
  it('every message has exactly one outcome; no duplicates, crashes or unhandled rejections', async () => {
    // ---------------------------------------------------------------- setup, without faults
    const deletes = Math.ceil(MESSAGES / OPS.length);
    const setupClient = createClient({
      workflowUrl: sim.workflowUrl,
      liveCaptureUrl: sim.liveCaptureUrl,
      spaceId: DEMO.space,
      apiKey: DEMO.keys.admin,
      accessToken: DEMO.token,
    });
    // each channel brings two events once its recording has started
    const setupChannels = Math.ceil(deletes / 2);
    for (let i = 0; i < setupChannels; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, setupChannels - i) }, (_, j) =>
          setupClient.createChannel({ name: `setup-${i + j}` }),
        ),
      );
    }
    await setupClient.close();
    sim.advance(CHANNEL_RECORDING_AFTER_MS + 1_000);
    const events = (await admin<{ events: Array<{ id: string }> }>(sim, `/spaces/${DEMO.space}/events`)).events;
    expect(events.length).toBeGreaterThanOrEqual(deletes);
    const eventIds = events.map((e) => e.id);

    await helper.load(EVERY_NODE, flow(sim), credentials());
    const tracker = new OutcomeTracker();
    tracker.attach({ outcome: [helper.getNode('out')], error: [helper.getNode('caught')] });
    const log = new LogCollector((sim as unknown as { log: RequestLog }).log);
    log.collect();

    // ---------------------------------------------------------------- the run
    for (const spec of faultSpecs()) sim.addFault(spec);
    watch.start();
    const started = Date.now();
    const collector = setInterval(() => log.collect(), 200);
    let deleteIndex = 0;
    try {
      for (let i = 0; i < MESSAGES; i++) {
        if (!(await tracker.below(CONCURRENCY, 60_000))) break;
        const op = OPS[i % OPS.length];
        const id = `fault-${i}`;
        const msg: Msg = { _msgid: id, idempotency_key: `idem-${id}` };
        if (op === 'submit') {
          msg.job_name = `fault-job-${i}`;
          msg.payload = {};
        } else if (op === 'channel') {
          msg.payload = { name: `fault-chan-${i}` };
        } else if (op === 'delete') {
          msg.event_id = eventIds[deleteIndex++];
        }
        tracker.expect(id, op);
        helper.getNode(`op-${op}`).receive(msg);
      }
      await tracker.drain(30_000);
    } finally {
      clearInterval(collector);
    }
    const elapsedMs = Date.now() - started;
    sim.clearFaults();
    log.collect();

    // a message still pending after 30 s without any progress is lost; then the runtime must still work
    const runTracked = [...tracker.byId.values()];
    tracker.expect('after-run', 'after');
    helper.getNode('op-list').receive({ _msgid: 'after-run' });
    await tracker.drain(5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    watch.stop();
    const afterRun = tracker.byId.get('after-run');
    tracker.byId.delete('after-run');

    // ---------------------------------------------------------------- figures
    const tracked = runTracked;
    const { lost, multiple } = tracker.anomalies();
    const jobs = (await admin<{ jobs: AdminJob[] }>(sim, `/spaces/${DEMO.space}/jobs`)).jobs.filter((j) =>
      j.name.startsWith('fault-job-'),
    );
    const channels = (await admin<{ channels: AdminChannel[] }>(sim, `/spaces/${DEMO.space}/channels`)).channels.filter(
      (c) => c.name.startsWith('fault-chan-'),
    );
    const jobsPerName = countBy(jobs, (j) => j.name);
    const channelsPerName = countBy(channels, (c) => c.name);
    const duplicateJobs = Object.values(jobsPerName).filter((n) => n > 1).length;
    const duplicateChannels = Object.values(channelsPerName).filter((n) => n > 1).length;

    const errorKey = (m: Msg) => {
      const cause = (m.error?.cause ?? {}) as { status?: number; code?: string };
      return cause.status === undefined ? String(cause.code) : `${cause.status} ${cause.code}`;
    };
    const perOp = OPS.map((op) => {
      const mine = tracked.filter((t) => t.kind === op);
      const outputs = mine.reduce((n, t) => n + t.outputs.length, 0);
      const errors = mine.reduce((n, t) => n + t.errors.length, 0);
      return {
        op,
        in: mine.length,
        outputs,
        errors,
        lost: mine.length - outputs - errors,
        errorsBy: countBy(
          mine.flatMap((t) => t.errors),
          errorKey,
        ),
      };
    });
    const total = perOp.reduce(
      (a, r) => ({
        in: a.in + r.in,
        outputs: a.outputs + r.outputs,
        errors: a.errors + r.errors,
        lost: a.lost + r.lost,
      }),
      { in: 0, outputs: 0, errors: 0, lost: 0 },
    );
    const requests = log.entries;
    const faulted = requests.filter((r) => r.fault !== undefined);
    const faultsByKind = countBy(
      faulted.flatMap((r) => (r.fault ?? '').split(',')),
      (k) => k,
    );
    const statusFaults = countBy(
      faulted.filter((r) => r.fault?.includes('status')),
      (r) => String(r.status),
    );
    const results = {
      size: SIZE_NAME,
      messages: MESSAGES,
      concurrency: CONCURRENCY,
      client: { timeout_ms: CLIENT_TIMEOUT_MS, retries: RETRIES, latency_fault_ms: LATENCY_MS },
      elapsed_ms: elapsedMs,
      per_operation: perOp,
      total,
      messages_lost: lost.length,
      messages_with_more_than_one_outcome: multiple.length,
      requests: requests.length,
      requests_per_message: Number((requests.length / MESSAGES).toFixed(3)),
      faulted_requests: faulted.length,
      fault_rate: Number((faulted.length / Math.max(1, requests.length)).toFixed(4)),
      expected_fault_rate: Number(expectedFaultRate().toFixed(4)),
      faults_by_kind: faultsByKind,
      status_faults_by_status: statusFaults,
      replayed_responses: requests.filter((r) => r.replayed).length,
      deletes_already_gone: tracked.filter((t) => t.kind === 'delete' && t.outputs[0]?.statusCode === 404).length,
      in_flight_409: requests.filter((r) => r.status === 409).length,
      jobs_created: jobs.length,
      channels_created: channels.length,
      duplicate_jobs: duplicateJobs,
      duplicate_channels: duplicateChannels,
      unhandled_rejections: watch.unhandledRejections.length,
      uncaught_exceptions: watch.uncaughtExceptions.length,
      process_warnings: watch.warnings,
      stray_messages: tracker.strays.length,
      runtime_alive_after_run: afterRun?.outputs.length === 1 && afterRun.errors.length === 0,
    };
    const file = writeResults('faults', results);
    print(
      [
        '',
        `faults suite (${SIZE_NAME}): ${MESSAGES} messages in ${(elapsedMs / 1000).toFixed(1)} s, ` +
          `${requests.length} requests, ${faulted.length} faulted (${(results.fault_rate * 100).toFixed(1)}%)`,
        table([
          ['operation', 'in', 'outputs', 'errors', 'lost', 'errors by status/code'],
          ...perOp.map((r) => [r.op, r.in, r.outputs, r.errors, r.lost, JSON.stringify(r.errorsBy)]),
          ['total', total.in, total.outputs, total.errors, total.lost, ''],
        ]),
        table([
          ['check', 'value'],
          ['messages lost', lost.length],
          ['messages with 2+ outcomes', multiple.length],
          ['jobs created / duplicates', `${jobs.length} / ${duplicateJobs}`],
          ['channels created / duplicates', `${channels.length} / ${duplicateChannels}`],
          ['unhandled rejections', watch.unhandledRejections.length],
          ['uncaught exceptions', watch.uncaughtExceptions.length],
          ['faults by kind', JSON.stringify(faultsByKind)],
          ['replayed responses / 409 in flight', `${results.replayed_responses} / ${results.in_flight_409}`],
          ['deletes found already gone on retry', results.deletes_already_gone],
        ]),
        `written to ${file}`,
      ].join('\n'),
    );

    // ---------------------------------------------------------------- assertions
    expect(tracked).toHaveLength(MESSAGES);
    expect(
      lost.map((t) => t.id),
      'messages lost',
    ).toEqual([]);
    expect(
      multiple.map((t) => `${t.id}: ${t.outputs.length} outputs, ${t.errors.length} errors`),
      'messages with more than one outcome',
    ).toEqual([]);
    expect(total.in - total.outputs - total.errors).toBe(0);
    expect(watch.describe(), 'process crashes and unhandled rejections').toEqual([]);
    expect(duplicateJobs, `duplicate jobs: ${JSON.stringify(jobsPerName).slice(0, 300)}`).toBe(0);
    expect(duplicateChannels, 'duplicate channels').toBe(0);
    expect(results.runtime_alive_after_run).toBe(true);
    expect(tracker.strays).toEqual([]);

    // every success is real: the job or channel it reports exists, the event it deleted is gone
    const jobIds = new Set(jobs.map((j) => j.id));
    const channelIds = new Set(channels.map((c) => c.id));
    const eventsLeft = new Set(
      (await admin<{ events: Array<{ id: string }> }>(sim, `/spaces/${DEMO.space}/events`)).events.map((e) => e.id),
    );
    for (const t of tracked) {
      const [out] = t.outputs;
      if (!out) continue;
      if (t.kind === 'delete') {
        expect(eventsLeft.has(out.event_id as string), t.id).toBe(false);
        // 404: a retry found the event already deleted by an attempt whose answer was lost
        expect([204, 404], t.id).toContain(out.statusCode);
        continue;
      }
      expect(out.statusCode, t.id).toBeGreaterThanOrEqual(200);
      expect(out.statusCode, t.id).toBeLessThan(300);
      if (t.kind === 'submit') expect(jobIds.has((out.payload as { id: string }).id), t.id).toBe(true);
      if (t.kind === 'channel') expect(channelIds.has((out.payload as { id: string }).id), t.id).toBe(true);
      if (t.kind === 'list') expect(Array.isArray(out.payload), t.id).toBe(true);
    }
    // every created job and channel belongs to a message that was sent
    expect(jobs.length).toBeLessThanOrEqual(perOp[1].in);
    expect(channels.length).toBeLessThanOrEqual(perOp[2].in);

    // the faults really happened, at about the rate asked for
    expect(results.fault_rate).toBeGreaterThan(0.15);
    expect(results.fault_rate).toBeLessThan(0.26);
    for (const kind of ['status', 'drop', 'truncate', 'latency']) expect(faultsByKind[kind] ?? 0).toBeGreaterThan(0);

    // every Catch-visible error names its cause, and each cause is one the faults explain
    for (const t of tracked) {
      for (const e of t.errors) {
        const cause = (e.error?.cause ?? {}) as { status?: number; code?: string; message?: string };
        expect(typeof cause.message, t.id).toBe('string');
        const explained =
          cause.status === 500 || // not retried
          [429, 502, 503, 504].includes(cause.status ?? 0) || // retries used up
          cause.code === 'timeout' ||
          cause.code === 'network_error';
        expect(explained, `${t.id} (${t.kind}): ${JSON.stringify(cause)}`).toBe(true);
      }
    }
    // retries hide most faults: far fewer messages fail than requests are faulted
    expect(total.errors / total.in).toBeLessThan(results.fault_rate / 2);
  });
});
