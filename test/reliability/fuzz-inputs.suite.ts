import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../lib/client';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { CHANNEL_RECORDING_AFTER_MS } from '../../lib/simulator/channels';
import { CONFIG_ID, configNode, credentials, DEMO, helper, initRuntime } from '../support/node-red-runtime';
import {
  describeValue,
  fuzzNumber,
  fuzzString,
  fuzzValue,
  hugeString,
  POLLUTION_KEYS,
  pollutingObject,
  randomJson,
} from './support/fuzz-values';
import { type Msg, OutcomeTracker, type Tracked } from './support/outcome-tracker';
import { ProcessWatch } from './support/process-watch';
import { print, table, writeResults } from './support/results';
import { EVERY_NODE, onTab } from './support/runtime-nodes';
import { SeededRandom } from './support/seeded-random';
import { SEED, SIZE_NAME, sized } from './support/suite-size';

/**
 * Bad input, generated: CASES messages from a seeded PRNG (RELIABILITY_SEED
 * reproduces a run) into every node input of one deployed flow: the four
 * operation nodes, the schedule node's control input and the follow-job and wait-workflow nodes in
 * job and workflow-active mode. Each message starts from a valid one for its
 * node and gets 1-4 fields replaced: random JSON, wrong types in every field
 * the nodes read (payload, workflow_id, job_name, event_id, max_results,
 * page_token, status, idempotency_key, and the schedule and watch fields),
 * 1 MB strings, nesting 2,000 deep, prototype-pollution keys (own
 * __proto__ / constructor keys, as JSON.parse makes them, in fields and on
 * the message itself), unicode, NaN and Infinity, arrays, Buffers, Dates.
 *
 * Asserted for every message: exactly one outcome: one output, or one
 * Catch-visible error that is clear: a code, a short message (never the
 * 1 MB value), no JavaScript internals (TypeError texts), and, when the
 * input was refused before sending (invalid_input), field errors naming the
 * field that the message also names. Also: no unhandled rejection or
 * uncaught exception, Object.prototype untouched, every node still works.
 *
 * Size: 1,200 cases (CI), 10,000 with RELIABILITY_SIZE=long.
 */

const CASES = sized(1_200, 10_000);
const CONCURRENCY = 16;
const TAB = 'fuzz';
/** The wait-workflow and follow-job nodes' own give-up time, so that waits for names that never appear end. */
const WATCH_TIMEOUT_MS = 300;

const TARGETS = ['list', 'submit', 'channel', 'delete', 'schedule', 'watch-job', 'watch-active'] as const;
type Target = (typeof TARGETS)[number];

/** The fields of the list, thrown at every node, plus the ones each node reads. */
const COMMON_FIELDS = [
  'payload',
  'workflow_id',
  'job_name',
  'event_id',
  'max_results',
  'page_token',
  'status',
  'idempotency_key',
];
const NODE_FIELDS: Record<Target, string[]> = {
  list: [],
  submit: ['payload.variables', 'payload.usage', 'payload.job_name', 'payload.labels', 'payload.media_nicknames'],
  channel: ['payload.name', 'payload.tags', 'payload.recording_duration', 'payload.expected_properties'],
  delete: [],
  schedule: ['topic', 'payload.command', 'window_id', 'payload.window_id', 'count', 'window', 'window.slotKey'],
  'watch-job': ['job_id', 'payload.id', 'payload.workflow_id', 'timeout'],
  'watch-active': ['workflow_name', 'timeout'],
};

/** Words an error may use for a field (the message names the field one way or another). */
const FIELD_WORDS = [
  'payload',
  'workflow',
  'job_name',
  'job',
  'event_id',
  'max_results',
  'page_token',
  'status',
  'idempotency_key',
  'Idempotency-Key',
  'command',
  'window_id',
  'window',
  'slotKey',
  'timeout',
  'name',
  'variables',
  'usage',
  'labels',
  'media_nicknames',
  'attachments',
  'tags',
  'recording_duration',
  'expected_properties',
  'inputs',
];

/** JavaScript's own error texts: an error a user sees must never be one of these. */
const INTERNALS =
  /Cannot read propert|Cannot set propert|is not a function|is not iterable|is not a constructor|Maximum call stack|\[object Object\]|undefined is not|null is not|Unexpected token|Converting circular/;

const SCHEDULE_YAML = `schedule_id: fuzz
windows:
  - id: w1
    name: Fuzz window
    cron: "0 0 1 1 *"
    timezone: UTC
    duration: 1h
    channel:
      name: "Fuzz {{slot.date}}"
  - id: w2
    cron: "30 12 * * mon"
    duration: 30m
`;

function flow(sim: Simulator): Record<string, unknown>[] {
  const at = onTab(TAB);
  const nodes = TARGETS.map((t) => `n-${t}`);
  return [
    { id: TAB, type: 'tab', label: 'fuzz' },
    configNode(sim, { timeout: 3_000, retries: 0 }),
    { id: 'n-list', ...at, type: 'media-spaces-list-workflows', server: CONFIG_ID, mode: 'page', wires: [['out']] },
    {
      id: 'n-submit',
      ...at,
      type: 'media-spaces-submit-job',
      server: CONFIG_ID,
      workflowId: DEMO.workflows.transcode,
      workflowIdType: 'str',
      jobName: 'fuzz {{payload.kind}}',
      wires: [['out']],
    },
    {
      id: 'n-channel',
      ...at,
      type: 'media-spaces-create-channel',
      server: CONFIG_ID,
      channelName: 'Fuzz studio',
      wires: [['out']],
    },
    {
      id: 'n-delete',
      ...at,
      type: 'media-spaces-delete-event',
      server: CONFIG_ID,
      eventId: 'event_id',
      eventIdType: 'msg',
      wires: [['out']],
    },
    {
      id: 'n-schedule',
      ...at,
      type: 'media-spaces-schedule',
      source: 'yaml',
      yaml: SCHEDULE_YAML,
      catchUp: false,
      // start and control replies are outcomes; end messages (none within the run) are not
      wires: [['out'], ['ends'], ['out']],
    },
    {
      id: 'n-watch-job',
      ...at,
      type: 'media-spaces-follow-job',
      server: CONFIG_ID,
      interval: 50,
      timeout: String(WATCH_TIMEOUT_MS * 4),
      wires: [['out'], ['progress']],
    },
    {
      id: 'n-watch-active',
      ...at,
      type: 'media-spaces-wait-workflow',
      server: CONFIG_ID,
      interval: 50,
      timeout: String(WATCH_TIMEOUT_MS),
      wires: [['out']],
    },
    { id: 'out', ...at, type: 'helper' },
    { id: 'progress', ...at, type: 'helper' },
    { id: 'ends', ...at, type: 'helper' },
    { id: 'catcher', ...at, type: 'catch', scope: nodes, uncaught: false, wires: [['caught']] },
    { id: 'caught', ...at, type: 'helper' },
  ];
}

interface Pools {
  eventIds: string[];
  doneJobId: string;
  slotKeys: string[];
}

/** A valid message for the target, the starting point of every case. */
function validMessage(r: SeededRandom, target: Target, pools: Pools): Msg {
  switch (target) {
    case 'list':
      return r.chance(0.5) ? { max_results: r.int(1, 100) } : { status: r.pick(['active', 'idle', '']) };
    case 'submit':
      return { payload: {}, job_name: `fuzz-${r.int(0, 1e9)}` };
    case 'channel':
      return { payload: { name: `fuzz-${r.int(0, 1e9)}`, tags: ['fuzz'] } };
    case 'delete':
      return { event_id: r.pick(pools.eventIds) };
    case 'schedule': {
      const roll = r.next();
      if (roll < 0.3) return { topic: r.pick(['list', 'pause', 'resume', 'reload']) };
      if (roll < 0.5) return { payload: { command: 'list', count: r.int(1, 20) } };
      if (roll < 0.7) return { topic: 'trigger', window_id: r.pick(['w1', 'w2']) };
      if (roll < 0.85 && pools.slotKeys.length > 0) {
        return { window: { slotKey: r.pick(pools.slotKeys) }, payload: { id: `chan-${r.int(0, 1e6)}` } };
      }
      return { payload: 'list' };
    }
    case 'watch-job':
      return r.chance(0.5)
        ? { job_id: pools.doneJobId, workflow_id: DEMO.workflows.transcode }
        : { payload: { id: pools.doneJobId, workflow_id: DEMO.workflows.transcode } };
    case 'watch-active':
      return { workflow_id: r.pick([DEMO.workflows.transcode, DEMO.workflows.publish]) };
  }
}

/** Values that make sense for a field now and then, so that mutations also produce valid messages. */
function poolFor(field: string, pools: Pools): unknown[] {
  switch (field) {
    case 'workflow_id':
    case 'payload.workflow_id':
      return [DEMO.workflows.transcode, DEMO.workflows.idle, DEMO.workflows.unknown];
    case 'event_id':
      return pools.eventIds.slice(0, 20);
    case 'job_id':
    case 'payload.id':
      return [pools.doneJobId];
    case 'window_id':
    case 'payload.window_id':
      return ['w1', 'w2', 'w3'];
    case 'window.slotKey':
      return pools.slotKeys.slice(-5);
    case 'topic':
    case 'payload.command':
      return ['trigger', 'list', 'pause', 'resume', 'reload', 'LIST', ' trigger '];
    case 'status':
      return ['active', 'idle', 'archived', 'deleted', ''];
    case 'max_results':
      return [1, 50, 100, '7'];
    default:
      return [];
  }
}

/** Sets a dotted field, making the parent an object when it is not one. */
function setField(msg: Msg, field: string, value: unknown): void {
  const [head, tail] = field.split('.', 2);
  if (tail === undefined) {
    if (value === undefined) delete msg[head];
    else msg[head] = value;
    return;
  }
  const parent = msg[head];
  const obj =
    parent !== null && typeof parent === 'object' && !Array.isArray(parent) && !Buffer.isBuffer(parent)
      ? (parent as Record<string, unknown>)
      : {};
  obj[tail] = value;
  msg[head] = obj;
}

/**
 * A wait the polling node was asked to keep up longer than the run lasts (msg.timeout 0 = never,
 * or minutes): replaced by a short one. Only whole numbers are touched: wrong types stay.
 */
function boundTimeout(msg: Msg): void {
  const t = msg.timeout;
  const n = typeof t === 'number' ? t : typeof t === 'string' && /^\s*[+-]?\d{1,15}\s*$/.test(t) ? Number(t) : NaN;
  if (Number.isInteger(n) && (n === 0 || n > 1_000)) msg.timeout = 200;
}

interface Case {
  id: string;
  target: Target;
  msg: Msg;
  /** field -> label of the value it got */
  mutations: Record<string, string>;
}

function generateCase(r: SeededRandom, index: number, pools: Pools): Case {
  const target = TARGETS[index % TARGETS.length];
  const id = `fz-${index}`;
  let msg = validMessage(r, target, pools);
  const mutations: Record<string, string> = {};
  // about one case in eight stays valid
  const changes = r.chance(0.12) ? 0 : r.int(1, 4);
  const fields = [...COMMON_FIELDS, ...NODE_FIELDS[target]];
  for (let i = 0; i < changes; i++) {
    const field = r.pick(fields);
    const roll = r.next();
    let value: unknown;
    if (roll < 0.05) value = undefined;
    else if (roll < 0.08) value = hugeString(r);
    else if (roll < 0.12) value = pollutingObject(r);
    else if (roll < 0.16) value = randomJson(r, 4);
    else if (roll < 0.2) value = fuzzNumber(r);
    else if (roll < 0.24) value = fuzzString(r, { hugeChance: 0 });
    else value = fuzzValue(r, { pool: poolFor(field, pools), hugeChance: 0.01 });
    setField(msg, field, value);
    mutations[field] = describeValue(value);
  }
  // now and then the message itself carries a prototype-pollution key
  if (r.chance(0.04)) {
    const key = r.pick(POLLUTION_KEYS);
    msg = Object.assign(JSON.parse(`{"${key}": {"polluted": "yes", "payload": "x"}}`) as Msg, msg);
    mutations[`(msg).${key}`] = 'own key';
  }
  if (target === 'watch-job' || target === 'watch-active') boundTimeout(msg);
  msg._msgid = id;
  return { id, target, msg, mutations };
}

/** Problems with one case's outcome; empty when it is exactly one clear outcome. */
function problemsOf(t: Tracked): string[] {
  const n = t.outputs.length + t.errors.length;
  if (n === 0) return ['no outcome'];
  if (n > 1) return [`${t.outputs.length} outputs and ${t.errors.length} errors`];
  if (t.outputs.length === 1) return [];
  const m = t.errors[0];
  const record = (m.error?.cause ?? {}) as {
    status?: number;
    code?: unknown;
    message?: unknown;
    fieldErrors?: Record<string, string>;
  };
  const message = typeof record.message === 'string' ? record.message : '';
  const problems: string[] = [];
  if (typeof record.code !== 'string' || record.code === '') problems.push('error without a code');
  if (message.trim() === '') problems.push('error without a message');
  if (message.length > 2_000) problems.push(`error message of ${message.length} characters`);
  if (INTERNALS.test(message)) problems.push(`JavaScript internals in the message: ${message.slice(0, 200)}`);
  if (record.code === 'invalid_input' && record.status === undefined) {
    const keys = Object.keys(record.fieldErrors ?? {});
    if (keys.length === 0) problems.push(`refused without field errors: ${message.slice(0, 200)}`);
    const named = [...keys.flatMap((k) => [k, k.split('.').at(-1) ?? k]), ...FIELD_WORDS];
    if (!named.some((w) => w !== '' && message.includes(w))) {
      problems.push(`message names no field: ${message.slice(0, 200)}`);
    }
  }
  return problems;
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

describe(`fuzz of node inputs (${SIZE_NAME}: ${CASES} cases, seed ${SEED})`, () => {
  it('every generated message ends in exactly one clear error or one output', async () => {
    // ---------------------------------------------------------------- pools of valid ids
    const client = createClient({
      workflowUrl: sim.workflowUrl,
      liveCaptureUrl: sim.liveCaptureUrl,
      spaceId: DEMO.space,
      apiKey: DEMO.keys.admin,
      accessToken: DEMO.token,
    });
    await Promise.all(Array.from({ length: 40 }, (_, i) => client.createChannel({ name: `events-${i}` })));
    const job = await client.submitJob(DEMO.workflows.transcode, {}, { jobName: 'fuzz done job' });
    await client.close();
    // recordings start (events appear) and the job finishes
    sim.advance(Math.max(CHANNEL_RECORDING_AFTER_MS, 60_000) + 1_000);
    const events = (await (await fetch(`${sim.adminUrl}/spaces/${DEMO.space}/events`)).json()) as {
      events: Array<{ id: string }>;
    };
    const pools: Pools = { eventIds: events.events.map((e) => e.id), doneJobId: job.data.id, slotKeys: [] };
    expect(pools.eventIds.length).toBeGreaterThan(0);

    await helper.load(EVERY_NODE, flow(sim), credentials());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const tracker = new OutcomeTracker();
    tracker.attach({
      outcome: [helper.getNode('out')],
      error: [helper.getNode('caught')],
      progress: [helper.getNode('progress')],
    });
    // slot keys of triggered windows, for channels routed back to the schedule
    helper.getNode('out').on('input', (m) => {
      const key = (m as { window?: { slotKey?: unknown } }).window?.slotKey;
      if (typeof key === 'string' && (m as Msg).topic === 'start') pools.slotKeys.push(key);
    });

    // ---------------------------------------------------------------- the run
    const r = new SeededRandom(SEED);
    const cases = new Map<string, Case>();
    watch.start();
    const started = Date.now();
    for (let i = 0; i < CASES; i++) {
      if (!(await tracker.below(CONCURRENCY, 30_000))) break;
      const c = generateCase(r.fork(), i, pools);
      cases.set(c.id, c);
      tracker.expect(c.id, c.target);
      helper.getNode(`n-${c.target}`).receive(c.msg);
    }
    await tracker.drain(15_000);
    // a second outcome would come soon after the first
    await new Promise((resolve) => setTimeout(resolve, 500));
    const elapsedMs = Date.now() - started;

    // ---------------------------------------------------------------- every node still works
    const after = new OutcomeTracker();
    after.attach({ outcome: [helper.getNode('out')], error: [helper.getNode('caught')] });
    const checks: Array<[Target, Msg]> = [
      ['list', { max_results: 2 }],
      ['submit', { payload: {} }],
      ['channel', { payload: { name: 'after fuzz' } }],
      ['schedule', { topic: 'list' }],
      ['watch-job', { job_id: pools.doneJobId, workflow_id: DEMO.workflows.transcode }],
      ['watch-active', { workflow_id: DEMO.workflows.transcode }],
    ];
    for (const [target, msg] of checks) {
      after.expect(`after-${target}`, target);
      helper.getNode(`n-${target}`).receive({ ...msg, _msgid: `after-${target}` });
    }
    await after.drain(5_000);
    watch.stop();

    // ---------------------------------------------------------------- figures
    const tracked = [...tracker.byId.values()];
    const failures: string[] = [];
    for (const t of tracked) {
      const problems = problemsOf(t);
      if (problems.length > 0) {
        const c = cases.get(t.id);
        const shown = inspect(c?.msg, { depth: 3, maxStringLength: 60, maxArrayLength: 4, breakLength: Infinity });
        failures.push(`${t.id} ${t.kind} ${JSON.stringify(c?.mutations)}: ${problems.join('; ')} -- msg ${shown}`);
      }
    }
    const perTarget = TARGETS.map((target) => {
      const mine = tracked.filter((t) => t.kind === target);
      const outputs = mine.filter((t) => t.outputs.length === 1 && t.errors.length === 0).length;
      const errors = mine.filter((t) => t.errors.length === 1 && t.outputs.length === 0).length;
      const codes: Record<string, number> = {};
      for (const t of mine) {
        for (const e of t.errors) {
          const rec = (e.error?.cause ?? {}) as { code?: string; status?: number };
          const key = rec.status === undefined ? String(rec.code) : `${rec.status} ${rec.code}`;
          codes[key] = (codes[key] ?? 0) + 1;
        }
      }
      return { target, cases: mine.length, outputs, errors, other: mine.length - outputs - errors, codes };
    });
    const fieldsTouched: Record<string, number> = {};
    for (const c of cases.values()) {
      for (const f of Object.keys(c.mutations)) fieldsTouched[f] = (fieldsTouched[f] ?? 0) + 1;
    }
    const polluted = ({} as Record<string, unknown>).polluted !== undefined || ({} as Record<string, unknown>).isAdmin;
    const afterOk = [...after.byId.values()].filter((t) => t.outputs.length === 1 && t.errors.length === 0).length;
    const results = {
      size: SIZE_NAME,
      seed: SEED,
      cases: CASES,
      elapsed_ms: elapsedMs,
      per_node: perTarget,
      fields_mutated: fieldsTouched,
      failures: failures.length,
      failure_samples: failures.slice(0, 30),
      unhandled_rejections: watch.unhandledRejections.length,
      uncaught_exceptions: watch.uncaughtExceptions.length,
      process_warnings: watch.warnings,
      object_prototype_polluted: Boolean(polluted),
      nodes_working_after: `${afterOk}/${checks.length}`,
    };
    const file = writeResults('fuzz-inputs', results);
    print(
      [
        '',
        `fuzz of node inputs (${SIZE_NAME}, seed ${SEED}): ${CASES} cases in ${(elapsedMs / 1000).toFixed(1)} s`,
        table([
          ['node', 'cases', 'outputs', 'errors', 'other', 'errors by status/code'],
          ...perTarget.map((p) => [p.target, p.cases, p.outputs, p.errors, p.other, JSON.stringify(p.codes)]),
        ]),
        table([
          ['check', 'value'],
          ['cases without exactly one clear outcome', failures.length],
          [
            'unhandled rejections / uncaught exceptions',
            `${results.unhandled_rejections} / ${results.uncaught_exceptions}`,
          ],
          ['Object.prototype polluted', String(results.object_prototype_polluted)],
          ['nodes working after the run', results.nodes_working_after],
        ]),
        `written to ${file}`,
      ].join('\n'),
    );

    // ---------------------------------------------------------------- assertions
    expect(tracked).toHaveLength(CASES);
    expect(failures, 'cases without exactly one clear outcome').toEqual([]);
    expect(watch.describe(), 'process crashes and unhandled rejections').toEqual([]);
    expect(results.object_prototype_polluted).toBe(false);
    expect(results.nodes_working_after).toBe(`${checks.length}/${checks.length}`);
    // the generator reached both outcomes on every node, and every field of the list
    for (const p of perTarget) {
      expect(p.errors, p.target).toBeGreaterThan(0);
      if (p.target !== 'delete') expect(p.outputs, p.target).toBeGreaterThan(0);
    }
    for (const field of COMMON_FIELDS) expect(fieldsTouched[field] ?? 0, field).toBeGreaterThan(0);
  });
});
