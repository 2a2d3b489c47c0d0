import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsRunRecord } from '../../../lib/asrun';
import {
  type FlowNode,
  httpJson,
  type NodeRedProcess,
  prepareUserDir,
  ROOT,
  startNodeRed,
  waitFor,
} from '../../reliability/support-restart/node-red';
import { PrometheusServer } from '../../support/prometheus-server';
import { parseSamples, promtoolProblems, sampleValue } from '../../support/prometheus-text';
import { SlotStory } from '../../support/slot-transitions';
import { adminAuthSettings, installFixtureNodes, PASSWORDS, signInBody } from './support';

/**
 * The monitoring endpoints in a real Node-RED (the package linked into its
 * user directory) under adminAuth, with Prometheus' bearer token accepted
 * through adminAuth.tokens as docs/monitoring.md shows. Slot transitions are
 * published inside the runtime by a test-only node module
 * (test/e2e/fixtures/slot-events), as the schedule publishes them; Debian's
 * prometheus scrapes the route with the shipped scrape config and rules:
 * docs/prometheus/prometheus-admin-auth.yml here, and prometheus.yml (no
 * token file) against a second Node-RED without adminAuth at the end.
 */
const TOKEN = 'prometheus-scrape-token-4f1c';

function settings(): string {
  return adminAuthSettings().replace(
    "type: 'credentials',",
    `type: 'credentials',
    tokens: function (token) {
      return Promise.resolve(token === ${JSON.stringify(TOKEN)} ? { username: 'prometheus', permissions: ['media-spaces.metrics'] } : null);
    },`,
  );
}

const flow: FlowNode[] = [
  { id: 'montab0000000001', type: 'tab', label: 'monitoring' },
  { id: 'monevents0000001', type: 'media-spaces-test-slot-events', z: 'montab0000000001', x: 100, y: 100, wires: [] },
];

const today = new Date().toISOString().slice(0, 10);
const at = (h: number) => `${today}T${String(h).padStart(2, '0')}:00:00Z`;

type Alert = { labels: Record<string, string>; state: string };

/**
 * The missed-slot alert's states as Prometheus reports them, read every 200 ms until it fires: the
 * shipped rule's `for: 30s` shows as a pending phase first (its labels carrying schedule_name), then
 * firing with the same labels.
 */
async function missedAlertPendingThenFiring(
  p: PrometheusServer,
): Promise<{ pending: Alert; firing: Alert; ms: number }> {
  let pending: { alert: Alert; at: number } | undefined;
  const firing = await waitFor(
    async () => {
      const alert = (await p.alerts()).find((a) => a.labels.alertname === 'MediaSpacesSlotMissed');
      if (alert?.state === 'pending') pending ??= { alert, at: Date.now() };
      return alert?.state === 'firing' ? alert : undefined;
    },
    'the missed-slot alert pending, then firing',
    { timeoutMs: 75_000, intervalMs: 200 },
  );
  if (!pending) throw new Error('the missed-slot alert fired without a pending phase');
  return { pending: pending.alert, firing, ms: Date.now() - pending.at };
}

/** The process metrics through Prometheus: prom-client's default collectors, under nodered_. */
async function processMetrics(p: PrometheusServer): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of [
    'nodered_nodejs_eventloop_lag_p99_seconds',
    'nodered_nodejs_heap_size_used_bytes',
    'nodered_nodejs_active_handles_total',
    'nodered_process_resident_memory_bytes',
  ]) {
    const r = await p.query(name);
    if (r.length === 1) out[name] = r[0].value;
  }
  return out;
}

describe('monitoring routes: metrics and as-run log', () => {
  const userDir = join(ROOT, 'test', '.tmp', 'monitoring', `userdir-${process.pid}`);
  let red: NodeRedProcess;
  let viewer: string;
  let outsider: string;
  let admin: string;
  let prometheus: PrometheusServer | undefined;

  const publish = (body: unknown) =>
    httpJson(`${red.url}/media-spaces-test/slot-events`, { method: 'POST', body, token: viewer });
  const scrape = (token?: string) =>
    fetch(`${red.url}/media-spaces/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

  beforeAll(async () => {
    prepareUserDir({ dir: userDir, flows: flow, settings: settings() });
    installFixtureNodes(userDir);
    red = await startNodeRed({ userDir });
    const token = async (username: string) => {
      const r = await httpJson(`${red.url}/auth/token`, {
        method: 'POST',
        body: signInBody(username, PASSWORDS[username as keyof typeof PASSWORDS]),
      });
      return (r.json as { access_token: string }).access_token;
    };
    admin = await token('admin');
    viewer = await token('viewer');
    outsider = await token('outsider');
  }, 90_000);

  afterAll(async () => {
    await prometheus?.stop();
    await red?.stop();
  });

  it('serves the metrics to a bearer token from adminAuth.tokens and to read users only', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape('not-the-token')).status).toBe(401);
    expect((await scrape(outsider)).status).toBe(403);
    const res = await scrape(TOKEN);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
    const text = await res.text();
    expect(promtoolProblems(text)).toEqual([]);
    expect(sampleValue(parseSamples(text), 'media_spaces_coordination_failures_total')).toBe(0);
  });

  it('Prometheus scrapes it with the shipped adminAuth config: counts, a lateness sample, the process metrics, the missed-slot alert pending then firing with schedule_name, the late-start and overrun alerts firing', async () => {
    const recorded = new SlotStory({ start: at(1), title: 'Morning' });
    const missed = new SlotStory({ start: at(2), title: 'Noon' });
    // the window is planned first: its series exist at 0 before anything happens
    expect((await publish({ transitions: [recorded.to('planned', -3600), missed.to('planned', -3600)] })).status).toBe(
      200,
    );
    prometheus = await PrometheusServer.start(join(userDir, 'prometheus'), `127.0.0.1:${red.port}`, TOKEN);
    const p = prometheus;
    await waitFor(async () => (await p.query('media_spaces_slots_total{outcome="missed"}')).length === 1, 'a scrape', {
      timeoutMs: 30_000,
    });
    const length = (recorded.end - recorded.start) / 1000;
    await publish({
      transitions: [
        recorded.to('starting', 0, { attempts: 1 }),
        recorded.to('recording', 75, { lateBy: 75, channel: { id: 'ch-1' } }),
        recorded.to('stopping', length),
        recorded.to('finishing', length + 1),
        recorded.to('finished', length + 4, { channel: { id: 'ch-1', outputs: [{ uri: 's3://b/ch-1.mxf' }] } }),
        missed.to('starting', 0, { attempts: 1 }),
        missed.to('missed', 120, { why: 'create channel failed: 503', attempts: 4 }),
      ],
      jobs: [{ slot: recorded.slot, job: { id: 'job-1', state: 'succeeded', elapsed: 95 } }],
    });
    const missedAlert = await missedAlertPendingThenFiring(p);
    const labels = { schedule: 'sched1', schedule_name: 'Evening news', window: 'news', severity: 'page' };
    expect(missedAlert.pending.labels).toMatchObject(labels);
    expect(missedAlert.firing.labels).toMatchObject(labels);
    // for: 30s, evaluated every second
    expect(missedAlert.ms).toBeGreaterThan(25_000);
    const one = async (expr: string) => (await p.query(expr)).map((r) => r.value);
    expect(await one('media_spaces_slots_total{outcome="recorded"}')).toEqual([1]);
    expect(await one('media_spaces_slots_total{outcome="missed"}')).toEqual([1]);
    expect(await one('media_spaces_slot_start_lateness_seconds_count')).toEqual([1]);
    expect(await one('media_spaces_slot_start_lateness_seconds_sum')).toEqual([75]);
    expect(await one('media_spaces_followup_jobs_total{state="succeeded"}')).toEqual([1]);
    const late = await waitFor(
      async () => (await p.alerts()).find((a) => a.labels.alertname === 'MediaSpacesStartLate' && a.state === 'firing'),
      'the late-start alert',
      { timeoutMs: 30_000 },
    );
    expect(late.labels).toMatchObject({ schedule_name: 'Evening news', window: 'news' });
    const proc = await processMetrics(p);
    expect(Object.keys(proc)).toHaveLength(4);
    expect(proc.nodered_nodejs_heap_size_used_bytes).toBeGreaterThan(1024 * 1024);
    expect(proc.nodered_nodejs_active_handles_total).toBeGreaterThan(0);
    expect(proc.nodered_nodejs_eventloop_lag_p99_seconds).toBeGreaterThanOrEqual(0);
    // the event-loop alert is loaded (and quiet on an idle Node-RED)
    const rules = await (await fetch(`${p.url}/api/v1/rules`)).json();
    expect(JSON.stringify(rules)).toContain('MediaSpacesEventLoopLag');
    // a recording that ran 15 s past its end (another day's: the as-run cases below read today's)
    const overran = new SlotStory({ start: '2026-01-05T10:00:00Z', minutes: 1, title: 'Overran' });
    await publish({
      transitions: [
        overran.to('starting', 0, { attempts: 1 }),
        overran.to('recording', 2, { channel: { id: 'ch-o' } }),
        overran.to('stopping', 60),
        overran.to('finishing', 75, { endedAt: '2026-01-05T10:01:15Z' }),
        overran.to('finished', 77, {
          channel: { id: 'ch-o' },
          endedAt: '2026-01-05T10:01:15Z',
          overrun: { by: 15, why: 'stop refused 503 ×14' },
        }),
      ],
    });
    await waitFor(
      async () =>
        (await p.alerts()).some((a) => a.labels.alertname === 'MediaSpacesSlotOverran' && a.state === 'firing'),
      'the overrun alert',
      { timeoutMs: 30_000 },
    );
    expect(await one('media_spaces_slots_total{outcome="overran"}')).toEqual([1]);
    expect(await one('media_spaces_slot_end_lateness_seconds_sum')).toEqual([15]);
    expect((await p.targets()).map((t) => [t.health, t.lastError])).toEqual([['up', '']]);
  }, 150_000);

  it('serves the day of the as-run log as JSON, CSV and JSON Lines, filtered', async () => {
    const partial = new SlotStory({ start: at(3), title: '=cmd|" /C calc"!A0' });
    await publish({
      transitions: [
        partial.to('starting', 0),
        partial.to('recording', 0.5, { lateBy: 0.5, channel: { id: 'p1' } }),
        partial.to('interrupted', 60, { why: 'continuity fault' }),
        partial.to('recording', 90, { channel: { id: 'p2' } }),
        partial.to('partial', 1805, { why: 'lost 30 s to a continuity fault' }),
      ],
    });
    const asRun = (query: string, token = viewer) => httpJson(`${red.url}/media-spaces/as-run?${query}`, { token });
    const day = await waitFor(async () => {
      const r = await asRun(`day=${today}&zone=UTC`);
      const records = (r.json as { records: AsRunRecord[] }).records;
      return records.length === 3 ? records : undefined;
    }, 'three records');
    expect(day.map((r) => [r.occurrence.title, r.outcome, r.reason])).toEqual([
      ['Morning', 'recorded', undefined],
      ['Noon', 'missed', 'create channel failed: 503'],
      ['=cmd|" /C calc"!A0', 'partial', 'lost 30 s to a continuity fault'],
    ]);
    expect(day[0]).toMatchObject({
      lateBy: 75,
      job: { id: 'job-1', state: 'succeeded' },
      discrepancy: 'started 75 s late',
    });
    const missed = (await asRun(`day=${today}&zone=UTC&outcome=missed`)).json as { records: AsRunRecord[] };
    expect(missed.records.map((r) => r.outcome)).toEqual(['missed']);
    expect(((await asRun(`day=${today}&zone=UTC&schedule=nobody`)).json as { records: unknown[] }).records).toEqual([]);
    const csv = await asRun(`day=${today}&zone=Europe/Paris&format=csv`);
    expect(csv.status).toBe(200);
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    // a day in Paris starts at 23:00 UTC the day before: the three slots are in it
    expect(rows.map((r) => [r.outcome, r.title])).toEqual([
      ['recorded', 'Morning'],
      ['missed', 'Noon'],
      ['partial', `'=cmd|" /C calc"!A0`],
    ]);
    expect(rows[0].scheduled_start).toMatch(/T0[23]:00:00\+0[12]:00$/);
    const jsonl = await asRun(`day=${today}&zone=UTC&format=jsonl&outcome=partial`);
    expect(
      jsonl.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).channels.map((c: { id: string }) => c.id)),
    ).toEqual([['p1', 'p2']]);
    expect((await asRun(`day=${today}&zone=UTC`, outsider)).status).toBe(403);
    expect((await asRun('day=yesterday&zone=UTC')).status).toBe(400);
    expect((await asRun(`day=${today}&zone=UTC&format=xml`)).status).toBe(400);
    expect((await asRun(`day=${today}&zone=UTC&outcome=lost`)).status).toBe(400);
  });

  it('ten redeploys: nothing registered twice, the counts go on', async () => {
    const before = parseSamples(await (await scrape(TOKEN)).text());
    for (let i = 0; i < 10; i++) {
      const r = await httpJson(`${red.url}/flows`, {
        method: 'POST',
        body: flow,
        token: admin,
        headers: { 'node-red-deployment-type': 'full' },
      });
      expect(r.status).toBe(204);
    }
    const s = new SlotStory({ start: at(4) });
    await publish({ transitions: [s.to('skipped', -60, { why: 'operator' })] });
    const after = parseSamples(await (await scrape(TOKEN)).text());
    const L = { schedule: 'sched1', window: 'news' };
    expect(sampleValue(after, 'media_spaces_slots_total', { ...L, outcome: 'recorded' })).toBe(
      sampleValue(before, 'media_spaces_slots_total', { ...L, outcome: 'recorded' }),
    );
    expect(sampleValue(after, 'media_spaces_slots_total', { ...L, outcome: 'skipped' })).toBe(1);
    expect(red.output()).not.toMatch(/already registered|already been registered/i);
  });
});

describe('Prometheus with the shipped config without adminAuth (no token file)', () => {
  const userDir = join(ROOT, 'test', '.tmp', 'monitoring', `userdir-open-${process.pid}`);
  let red: NodeRedProcess;
  let prometheus: PrometheusServer | undefined;

  beforeAll(async () => {
    prepareUserDir({ dir: userDir, flows: flow });
    installFixtureNodes(userDir);
    red = await startNodeRed({ userDir });
  }, 90_000);

  afterAll(async () => {
    await prometheus?.stop();
    await red?.stop();
  });

  it('scrapes the open endpoint: schedule_name, the process metrics, and the missed-slot alert pending then firing', async () => {
    const publish = (body: unknown) => httpJson(`${red.url}/media-spaces-test/slot-events`, { method: 'POST', body });
    const missed = new SlotStory({ start: at(2), title: 'Noon' });
    expect((await publish({ transitions: [missed.to('planned', -3600)] })).status).toBe(200);
    prometheus = await PrometheusServer.start(join(userDir, 'prometheus'), `127.0.0.1:${red.port}`);
    const p = prometheus;
    // the window at 0 in Prometheus before the miss: increase() sees the rise
    await waitFor(
      async () => (await p.query('media_spaces_slots_total{outcome="missed"} == 0')).length === 1,
      'the window at 0',
      { timeoutMs: 30_000 },
    );
    expect((await p.query('media_spaces_schedule_info')).map((r) => r.metric.schedule_name)).toEqual(['Evening news']);
    await publish({
      transitions: [
        missed.to('starting', 0, { attempts: 1 }),
        missed.to('missed', 120, { why: 'create channel failed: 503', attempts: 4 }),
      ],
    });
    const missedAlert = await missedAlertPendingThenFiring(p);
    expect(missedAlert.pending.labels).toMatchObject({ schedule_name: 'Evening news', window: 'news' });
    expect(missedAlert.firing.labels).toMatchObject({ schedule_name: 'Evening news', window: 'news' });
    expect(Object.keys(await processMetrics(p))).toHaveLength(4);
    expect((await p.targets()).map((t) => [t.health, t.lastError])).toEqual([['up', '']]);
  }, 150_000);
});
