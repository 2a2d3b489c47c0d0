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
import { parseSamples, promtoolCheckMetrics, sampleValue } from '../../support/prometheus-text';
import { SlotStory } from '../../support/slot-transitions';
import { adminAuthSettings, installFixtureNodes, PASSWORDS, signInBody } from './support';

/**
 * The monitoring endpoints in a real Node-RED (the package linked into its
 * user directory) under adminAuth, with Prometheus' bearer token accepted
 * through adminAuth.tokens as docs/monitoring.md shows. Slot transitions are
 * published inside the runtime by a test-only node module
 * (test/e2e/fixtures/slot-events), as the schedule publishes them; Debian's
 * prometheus scrapes the route with the shipped scrape config and rules.
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
    expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: '' });
    expect(sampleValue(parseSamples(text), 'media_spaces_coordination_failures_total')).toBe(0);
  });

  it('Prometheus scrapes it with the shipped config: counts, a lateness sample, and the missed-slot alert firing', async () => {
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
    const firing = await waitFor(
      async () => {
        const alerts = await p.alerts();
        return alerts.some((a) => a.labels.alertname === 'MediaSpacesSlotMissed' && a.state === 'firing')
          ? alerts
          : undefined;
      },
      'the missed-slot alert',
      { timeoutMs: 30_000 },
    );
    expect(firing.find((a) => a.labels.alertname === 'MediaSpacesSlotMissed')?.labels).toMatchObject({
      schedule: 'sched1',
      window: 'news',
      severity: 'page',
    });
    const one = async (expr: string) => (await p.query(expr)).map((r) => r.value);
    expect(await one('media_spaces_slots_total{outcome="recorded"}')).toEqual([1]);
    expect(await one('media_spaces_slots_total{outcome="missed"}')).toEqual([1]);
    expect(await one('media_spaces_slot_start_lateness_seconds_count')).toEqual([1]);
    expect(await one('media_spaces_slot_start_lateness_seconds_sum')).toEqual([75]);
    expect(await one('media_spaces_followup_jobs_total{state="succeeded"}')).toEqual([1]);
    await waitFor(
      async () => (await p.alerts()).some((a) => a.labels.alertname === 'MediaSpacesStartLate' && a.state === 'firing'),
      'the late-start alert',
      { timeoutMs: 30_000 },
    );
    expect((await p.targets()).map((t) => [t.health, t.lastError])).toEqual([['up', '']]);
  }, 90_000);

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
