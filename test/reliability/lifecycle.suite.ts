import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../lib/client';
import { type Simulator, startSimulator } from '../../lib/simulator';
import { nodeModule } from '../support/node-modules';
import { DEMO, helper, initRuntime, NODES } from '../support/node-red-runtime';
import { print, table, writeResults } from './support/results';

/**
 * The recording lifecycle on a bad day, in a real Node-RED runtime with the
 * demo's wiring (schedule -> create channel -> back into the schedule; end ->
 * submit job -> follow job; a Catch per tab), real timers and real HTTP. Three
 * schedules run at once, each against its own simulator so that one's faults
 * do not touch the others:
 *
 * - outage: 503 on every channel creation from 3 s before a 60 s window until
 *   30 s into it. One channel, created within 8 s of the outage's end, its
 *   lateness on the message; one follow-up after the end, on the finished
 *   recording.
 * - refused: every creation answered 503 for the whole of a 20 s window. No
 *   follow-up; one missed report on output 3; one error at the Catch node.
 * - windows: ten windows of 15 s every 20 s. Each channel records during its
 *   window and is no longer recording 10 s after its end; its stop goes
 *   within 1 s of the end; one follow-up each, carrying that channel's final
 *   outputs, and each follow-up job runs to its end.
 *
 * Figures: printed, and written to test/.tmp/reliability/lifecycle.json.
 */

const scheduleNode = nodeModule('media-spaces-schedule');
const followNode = nodeModule('media-spaces-follow-job');
// "Transcode recording to proxy": the demo's follow-up, declaring the Programme variable and the recording nickname
const FOLLOWUP_WORKFLOW = 'aaaaaaaa-0000-4000-8000-000000000006';
const WINDOWS = 10;
/** a window every 20 s: 5 s between one's end and the next start, each end's stop and follow-up beside a start */
const PERIOD_S = 20;

interface Seen {
  at: number;
  msg: Record<string, unknown>;
}

interface Chain {
  name: string;
  sim: Simulator;
  /** messages per helper: channel (create-channel out 1), end, missed (out 3), job (follow-job done), caught */
  seen: Record<'channel' | 'end' | 'control' | 'job' | 'caught', Seen[]>;
  statuses: () => string[];
}

const chains = new Map<string, Chain>();

/** A 6-field cron firing once, at `start` (UTC, whole second). */
function onceAt(start: number): string {
  const d = new Date(start);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *`;
}

function scheduleYaml(id: string, cron: string, durationS: number): string {
  return `timezone: UTC
windows:
  - id: ${id}
    name: ${id} window
    cron: "${cron}"
    duration: ${durationS}s
    channel:
      name: "${id} {{slot.epoch}}"
      continuous_recording: false
      recording_duration: 1
    followup:
      workflow_id: ${FOLLOWUP_WORKFLOW}
      job_name: "Proxy of {{channel.name}}"
      variables:
        Programme: "{{window.name}}"
      media_nicknames:
        recording: "{{channel.recording.outputs[0].location_url}}"
`;
}

const TAB = 'tab-lifecycle';
const at = { z: TAB, x: 100, y: 100 };

/**
 * The demo's wiring against one simulator. All chains share one tab and its
 * one Catch node (the test helper registers a core node type once per node);
 * a caught error belongs to the chain of the node that raised it.
 */
function chainNodes(name: string, sim: Simulator, yaml: string): Record<string, unknown>[] {
  const id = (part: string) => `${name}-${part}`;
  return [
    {
      id: id('cfg'),
      type: 'media-spaces-config',
      name: `${name} space`,
      workflowUrl: sim.workflowUrl,
      liveCaptureUrl: sim.liveCaptureUrl,
      spaceId: DEMO.space,
      workflowPrefix: '/workflow/v1',
      timeout: 5000,
      retries: 3,
      rejectUnauthorized: true,
    },
    {
      id: id('sched'),
      ...at,
      type: 'media-spaces-schedule',
      source: 'yaml',
      yaml,
      scheduleId: `${name}-${process.pid}`,
      catchUp: false,
      server: id('cfg'),
      wires: [[id('cc')], [id('submit'), id('end')], [id('control')]],
    },
    {
      id: id('cc'),
      ...at,
      type: 'media-spaces-create-channel',
      name: '',
      server: id('cfg'),
      watchState: true,
      wires: [[id('sched'), id('channel')], []],
    },
    { id: id('submit'), ...at, type: 'media-spaces-submit-job', name: '', server: id('cfg'), wires: [[id('follow')]] },
    {
      id: id('follow'),
      ...at,
      type: 'media-spaces-follow-job',
      server: id('cfg'),
      interval: 500,
      wires: [[id('job')], []],
    },
    ...['channel', 'end', 'control', 'job'].map((part) => ({ id: id(part), ...at, type: 'helper' })),
  ];
}

function watch(name: string, sim: Simulator): Chain {
  const seen: Chain['seen'] = { channel: [], end: [], control: [], job: [], caught: [] };
  for (const part of ['channel', 'end', 'control', 'job'] as const) {
    helper.getNode(`${name}-${part}`).on('input', (msg: unknown) => {
      seen[part].push({ at: Date.now(), msg: msg as Record<string, unknown> });
    });
  }
  const cc = helper.getNode(`${name}-cc`) as unknown as { status: { args: [{ text?: string }][] } };
  const chain: Chain = { name, sim, seen, statuses: () => cc.status.args.map((a) => a[0]?.text ?? '') };
  chains.set(name, chain);
  return chain;
}

async function waitUntil(condition: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const sleepUntil = (instant: number) => new Promise((r) => setTimeout(r, Math.max(0, instant - Date.now())));

function channelOf(seen: Seen): { id: string; state?: string; recording?: Record<string, unknown> } {
  return seen.msg.channel as { id: string; state?: string; recording?: Record<string, unknown> };
}

const sims: Simulator[] = [];
let outageSim: Simulator;
let refusedSim: Simulator;
let windowsSim: Simulator;
const base = Math.ceil(Date.now() / 1000) * 1000 + 15_000;
const outage = { start: base, end: base + 60_000, faultFrom: base - 3_000, faultUntil: base + 30_000 };
const refused = { start: base + 2_000, end: base + 22_000 };
const windowsDuration = 15_000;

beforeAll(async () => {
  initRuntime();
  outageSim = await startSimulator();
  refusedSim = await startSimulator();
  windowsSim = await startSimulator();
  sims.push(outageSim, refusedSim, windowsSim);
  const flow = [
    { id: TAB, type: 'tab', label: 'lifecycle' },
    ...chainNodes('outage', outageSim, scheduleYaml('outage', onceAt(outage.start), 60)),
    ...chainNodes('refused', refusedSim, scheduleYaml('refused', onceAt(refused.start), 20)),
    ...chainNodes('windows', windowsSim, scheduleYaml('windows', `*/${PERIOD_S} * * * * *`, windowsDuration / 1000)),
    { id: 'catch', ...at, type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', ...at, type: 'helper' },
  ];
  const creds = { apiKey: DEMO.keys.admin, accessToken: DEMO.token };
  await helper.load([NODES.config, NODES.channel, NODES.submit, scheduleNode, followNode], flow, {
    'outage-cfg': creds,
    'refused-cfg': creds,
    'windows-cfg': creds,
  });
  watch('outage', outageSim);
  watch('refused', refusedSim);
  watch('windows', windowsSim);
  helper.getNode('caught').on('input', (msg: unknown) => {
    const m = msg as Record<string, unknown> & { error?: { source?: { id?: string } } };
    const owner = m.error?.source?.id?.split('-')[0] ?? '';
    chains.get(owner)?.seen.caught.push({ at: Date.now(), msg: m });
  });
  // refused for the whole window, from before its start
  refusedSim.addFault({ route: 'create_channel', kind: 'status', status: 503 });
  probeWindows();
});

/** The windows' channel states read from outside: 3 s before each end, and 10 s after it. */
const during: string[] = [];
const after: string[] = [];
let probeTimer: ReturnType<typeof setInterval> | undefined;
function probeWindows(): void {
  const chain = chains.get('windows') as Chain;
  const client = createClient({
    workflowUrl: windowsSim.workflowUrl,
    liveCaptureUrl: windowsSim.liveCaptureUrl,
    spaceId: DEMO.space,
    apiKey: DEMO.keys.admin,
    accessToken: DEMO.token,
  });
  const state = async (id: string) => client.channelState((await client.getChannel(id)).data) ?? '?';
  const probed = new Set<string>();
  probeTimer = setInterval(() => {
    for (const seen of chain.seen.channel) {
      const id = (seen.msg.payload as { id: string }).id;
      if (probed.has(id)) continue;
      probed.add(id);
      const end = Date.parse((seen.msg.window as { end: string }).end);
      void (async () => {
        await sleepUntil(end - 3_000);
        during.push(await state(id));
        await sleepUntil(end + 10_000);
        after.push(await state(id));
      })();
    }
  }, 250);
}

afterAll(async () => {
  clearInterval(probeTimer);
  await helper.unload();
  for (const sim of sims) await sim.close();
});

describe('the recording lifecycle on a bad day', () => {
  it('outage at the start: one channel soon after the service is back, one follow-up on the finished recording', async () => {
    const chain = chains.get('outage') as Chain;
    await sleepUntil(outage.faultFrom);
    outageSim.addFault({ route: 'create_channel', kind: 'status', status: 503 });
    await sleepUntil(outage.faultUntil);
    outageSim.clearFaults();
    await waitUntil(() => chain.seen.end.length === 1 || chain.seen.caught.length > 0, 90_000);
    await waitUntil(() => chain.seen.job.length === 1 || chain.seen.caught.length > 0, 60_000);

    expect(chain.seen.caught.map((c) => c.msg.error)).toEqual([]);
    const creations = outageSim.requests().filter((r) => r.route === 'create_channel');
    const refusedCount = creations.filter((r) => r.status === 503).length;
    const created = creations.filter((r) => r.status === 201);
    expect(outageSim.counts().channels).toBe(1);
    expect(created.length).toBeGreaterThanOrEqual(1);
    // every attempt carried the slot's Idempotency-Key
    expect(new Set(creations.map((r) => r.idempotency_key)).size).toBe(1);
    const createdAfterOutage = Date.parse(created[0].time) - outage.faultUntil;
    expect(createdAfterOutage).toBeGreaterThanOrEqual(0);
    expect(createdAfterOutage).toBeLessThan(8_000);
    // the late start says how late, and the status showed the attempts
    const window = chain.seen.channel[0].msg.window as { late_ms: number };
    expect(window.late_ms).toBeGreaterThanOrEqual(30_000);
    expect(chain.statuses().some((t) => /^starting, attempt \d+: /.test(t))).toBe(true);
    // one follow-up, after the end, on the finished recording
    const [end] = chain.seen.end;
    expect(end.at).toBeGreaterThanOrEqual(outage.end);
    expect(channelOf(end).state).toBe('INACTIVE');
    const nicknames = (end.msg.payload as { media_nicknames: { recording: string } }).media_nicknames;
    expect(nicknames.recording).toMatch(/^s3:\/\/.+\.mxf$/);
    expect(outageSim.counts().jobs).toBe(1);
    expect(chain.seen.control.filter((c) => c.msg.topic === 'missed')).toEqual([]);
    results.outage = {
      refused_attempts: refusedCount,
      created_ms_after_outage: createdAfterOutage,
      late_ms: window.late_ms,
      followup_ms_after_end: end.at - outage.end,
    };
  });

  it('every creation refused for a whole window: no follow-up, one missed report, one Catch error', async () => {
    const chain = chains.get('refused') as Chain;
    // the outage test ran first and the window is over by now; the fault went in before its start
    await waitUntil(() => chain.seen.control.some((c) => c.msg.topic === 'missed'), 60_000);
    await sleepUntil(refused.end + 5_000);
    expect(chain.seen.end).toEqual([]);
    expect(refusedSim.counts().jobs).toBe(0);
    expect(refusedSim.counts().channels).toBe(0);
    const missed = chain.seen.control.filter((c) => c.msg.topic === 'missed');
    expect(missed).toHaveLength(1);
    const report = missed[0].msg.payload as { why: string; reason: string; attempts: number };
    expect(report.why).toBe('start_failed');
    expect(report.attempts).toBeGreaterThan(3);
    expect(chain.seen.caught).toHaveLength(1);
    const error = chain.seen.caught[0].msg.error as { message: string };
    expect(error.message).toMatch(/503.*the start of .* was given up/);
    results.refused = { attempts: report.attempts, missed_ms_after_end: missed[0].at - refused.end };
  });

  it(`${WINDOWS} windows of 15 s every ${PERIOD_S} s: each recording stopped at its end, each followed up once on its final outputs`, async () => {
    const chain = chains.get('windows') as Chain;
    await waitUntil(
      () => chain.seen.job.length >= WINDOWS || chain.seen.caught.length > 0,
      (WINDOWS + 2) * PERIOD_S * 1000,
    );
    await waitUntil(() => after.length >= WINDOWS, 30_000);
    expect(chain.seen.caught.map((c) => c.msg.error)).toEqual([]);
    const ends = chain.seen.end.slice(0, WINDOWS);
    const stops = windowsSim.requests().filter((r) => r.route === 'stop_channel');
    const stopLateness: number[] = [];
    const jobs = chain.seen.job.map((j) => j.msg.payload as { name: string; state: string });
    for (const end of ends) {
      const channel = channelOf(end);
      const window = end.msg.window as { end: string; slotKey: string };
      const first = stops.find((r) => r.path.includes(`/channels/${channel.id}/stop`));
      expect(first, window.slotKey).toBeDefined();
      const late = Date.parse(first?.time ?? '') - Date.parse(window.end);
      stopLateness.push(late);
      expect(late, window.slotKey).toBeGreaterThanOrEqual(0);
      expect(late, window.slotKey).toBeLessThan(1_000);
      expect(channel.state, window.slotKey).toBe('INACTIVE');
      const outputs = channel.recording?.outputs as { location_url: string }[];
      const media = (end.msg.payload as { media_nicknames: { recording: string } }).media_nicknames.recording;
      expect(media, window.slotKey).toBe(outputs[0].location_url);
      expect(jobs.filter((j) => j.name === `Proxy of ${(channel as { name?: string }).name}`)).toHaveLength(1);
    }
    expect(new Set(chain.seen.end.map((e) => (e.msg.window as { slotKey: string }).slotKey)).size).toBe(
      chain.seen.end.length,
    );
    expect(during.slice(0, WINDOWS).every((s) => s === 'RECORDING')).toBe(true);
    expect(after.slice(0, WINDOWS).every((s) => s === 'INACTIVE')).toBe(true);
    expect(jobs.slice(0, WINDOWS).every((j) => j.state === 'succeeded')).toBe(true);
    results.windows = {
      windows: ends.length,
      stop_ms_after_end_max: Math.max(...stopLateness),
      stop_ms_after_end: stopLateness,
      state_3s_before_end: during,
      state_10s_after_end: after,
    };
  });
});

const results: Record<string, unknown> = {};
afterAll(() => {
  const file = writeResults('lifecycle', results);
  const windows = results.windows as { stop_ms_after_end_max?: number } | undefined;
  print(
    table([
      ['scenario', 'figure'],
      [
        'outage: created after the outage (ms)',
        String((results.outage as Record<string, number>)?.created_ms_after_outage),
      ],
      ['outage: start late by (ms)', String((results.outage as Record<string, number>)?.late_ms)],
      ['refused: attempts until the end', String((results.refused as Record<string, number>)?.attempts)],
      ['windows: latest stop after an end (ms)', String(windows?.stop_ms_after_end_max)],
    ]),
  );
  print(`results: ${file}`);
});
