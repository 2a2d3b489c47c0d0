import { afterEach, describe, expect, it } from 'vitest';
import { CoordinationError } from '../../../lib/coordination/errors';
import { reportCoordinationFailure } from '../../../lib/coordination/failure-events';
import { reportFeedRefresh } from '../../../lib/feed-events';
import { type Family, SlotMetrics } from '../../../lib/metrics';
import { requestEvents } from '../../../lib/request-events';
import { scheduleWindows } from '../../../lib/schedule/slot-events';
import { metricsRegistry, PROCESS_METRICS_PREFIX } from '../../../nodes/sidebar/metrics-registry';
import { parseSamples, promtoolCheckMetrics, promtoolProblems, sampleValue } from '../../support/prometheus-text';
import { SCHEDULE, SlotStory, WINDOW } from '../../support/slot-transitions';

const L = { schedule: SCHEDULE.id, window: WINDOW.id };
let m: SlotMetrics;
afterEach(() => m?.stop());

/** What a scrape gets of these metrics, through prom-client (without the process metrics unless asked). */
function render(of: { families(): Family[] } = m, processMetrics = false): Promise<string> {
  return metricsRegistry(of, { processMetrics }).text();
}

function started(): SlotMetrics {
  m = new SlotMetrics();
  m.start();
  return m;
}

describe('Prometheus metrics from slot events', () => {
  it('a known window exports every series at 0, and the text passes promtool check metrics', async () => {
    started().knowWindow({ id: 'sched1', name: 'Evening "news"\\' }, 'news');
    const text = await render();
    expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: '' });
    const s = parseSamples(text);
    for (const outcome of ['recorded', 'partial', 'missed', 'skipped', 'cancelled']) {
      expect(sampleValue(s, 'media_spaces_slots_total', { ...L, outcome })).toBe(0);
    }
    for (const state of ['succeeded', 'failed', 'stopped']) {
      expect(sampleValue(s, 'media_spaces_followup_jobs_total', { ...L, state })).toBe(0);
    }
    expect(sampleValue(s, 'media_spaces_slot_start_lateness_seconds_count', L)).toBe(0);
    expect(sampleValue(s, 'media_spaces_slot_start_lateness_seconds_bucket', { ...L, le: '+Inf' })).toBe(0);
    expect(sampleValue(s, 'media_spaces_recording_interruptions_total', L)).toBe(0);
    expect(sampleValue(s, 'media_spaces_channels_recording', L)).toBe(0);
    expect(sampleValue(s, 'media_spaces_coordination_failures_total')).toBe(0);
    expect(sampleValue(s, 'media_spaces_schedule_info', { ...L, schedule_name: 'Evening "news"\\' })).toBe(1);
  });

  it('every window a schedule tells of exports its series at 0, a window with no next start too', async () => {
    started();
    scheduleWindows.publish({ schedule: { id: 'sched1', name: 'Evening news' }, windows: ['news', 'late'] });
    const s = parseSamples(await render());
    for (const window of ['news', 'late']) {
      expect(sampleValue(s, 'media_spaces_slots_total', { schedule: 'sched1', window, outcome: 'missed' })).toBe(0);
      expect(
        sampleValue(s, 'media_spaces_schedule_info', { schedule: 'sched1', window, schedule_name: 'Evening news' }),
      ).toBe(1);
    }
    // a window with no next start yet has no next-start sample, and every count at 0
    expect(s.filter((x) => x.name === 'media_spaces_slot_next_start_timestamp_seconds')).toEqual([]);
  });

  it("a conflict's loser counts skipped once its window ended; one started when a channel freed up counts once, by how it ended", async () => {
    started();
    const soon = Date.now() + 3600_000;
    const iso = (ms: number) => new Date(ms).toISOString().replace('.000', '');
    // two losers skipped at their start; their windows have not ended yet
    const waiting = new SlotStory({ start: iso(soon - 60_000) });
    const freed = new SlotStory({ start: iso(soon - 30 * 60_000), window: { id: 'film', zone: 'UTC' } });
    const over = new SlotStory({ start: iso(Date.now() - 2 * 3600_000), window: { id: 'archive', zone: 'UTC' } });
    for (const story of [waiting, freed, over]) story.go('skipped', 0, { why: 'conflict: lost to news' });
    // an operator's skip counts at once
    const skippedByHand = new SlotStory({ start: iso(soon), window: { id: 'late', zone: 'UTC' } });
    skippedByHand.go('skipped', 0, { why: 'skipped on request' });
    let s = parseSamples(await render());
    const count = (window: string, outcome: string) =>
      sampleValue(s, 'media_spaces_slots_total', { schedule: SCHEDULE.id, window, outcome });
    expect(count(WINDOW.id, 'skipped')).toBe(0);
    expect(count('film', 'skipped')).toBe(0);
    expect(count('archive', 'skipped')).toBe(1);
    expect(count('late', 'skipped')).toBe(1);
    // the film loser starts late once a channel freed up, and records
    freed.go('starting', 600, { from: 'planned', revived: true });
    freed.go('recording', 601, { lateBy: 601, channel: { id: 'c' } });
    freed.go('stopping', 1800);
    freed.go('finished', 1805);
    s = parseSamples(await render());
    expect([count('film', 'skipped'), count('film', 'recorded')]).toEqual([0, 1]);
    expect(count(WINDOW.id, 'skipped')).toBe(0);
  });

  it('an end told again after a restart (a replayed end: nothing of its slot heard before) is not a second slot', async () => {
    started();
    const now = new SlotStory({ start: '2026-11-26T10:00:00Z' });
    now.go('starting', 0);
    now.go('recording', 1, { lateBy: 1, channel: { id: 'now' } });
    // what a restarted schedule publishes for an end it replays: recording to finished, out of nowhere
    const replayed = new SlotStory({ start: '2026-11-26T09:00:00Z' });
    replayed.go('finished', 1900, { from: 'recording', channel: { id: 'old' } });
    const s = parseSamples(await render());
    expect(sampleValue(s, 'media_spaces_slots_total', { ...L, outcome: 'recorded' })).toBe(0);
    expect(sampleValue(s, 'media_spaces_channels_recording', L)).toBe(1);
    // the end it tells of is still the last recorded end known
    expect(sampleValue(s, 'media_spaces_slot_last_recorded_end_timestamp_seconds', L)).toBe(replayed.end / 1000);
    now.go('stopping', 1800);
    now.go('finished', 1805);
    const after = parseSamples(await render());
    expect(sampleValue(after, 'media_spaces_slots_total', { ...L, outcome: 'recorded' })).toBe(1);
    expect(sampleValue(after, 'media_spaces_channels_recording', L)).toBe(0);
  });

  it('counts outcomes, lateness, interruptions, channels recording now, and the timestamps', async () => {
    started();
    const future = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 3_600_000).toISOString();
    const next = new SlotStory({ start: future });
    next.go('planned', -60);
    const a = new SlotStory({ start: '2026-11-26T08:00:00Z' });
    a.go('starting', 0);
    a.go('recording', 7, { lateBy: 7, channel: { id: 'a' } });
    const b = new SlotStory({ start: '2026-11-26T09:00:00Z' });
    b.go('starting', 0);
    b.go('recording', 0.2, { lateBy: 0.2, channel: { id: 'b' } });
    b.go('interrupted', 60, { why: 'signal lost' });
    let s = parseSamples(await render());
    expect(sampleValue(s, 'media_spaces_channels_recording', L)).toBe(1);
    expect(sampleValue(s, 'media_spaces_slot_next_start_timestamp_seconds', L)).toBe(Date.parse(future) / 1000);
    b.go('recording', 90, { channel: { id: 'b2' } });
    b.go('stopping', 1800);
    b.go('finishing', 1801);
    b.go('partial', 1805, { why: 'gap' });
    a.go('stopping', 1800);
    a.go('finished', 1805);
    new SlotStory({ start: '2026-11-26T10:00:00Z' }).go('missed', 100, { why: 'no channel' });
    a.job('succeeded', 'j1', 45);
    b.job('failed', 'j2', 4000);
    b.job('malfunctioned', 'j3', 20_000);
    const text = await render();
    expect(promtoolCheckMetrics(text).output).toBe('');
    s = parseSamples(text);
    expect(sampleValue(s, 'media_spaces_slots_total', { ...L, outcome: 'recorded' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_slots_total', { ...L, outcome: 'partial' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_slots_total', { ...L, outcome: 'missed' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_channels_recording', L)).toBe(0);
    expect(sampleValue(s, 'media_spaces_recording_interruptions_total', L)).toBe(1);
    expect(sampleValue(s, 'media_spaces_slot_last_recorded_end_timestamp_seconds', L)).toBe(
      Date.parse('2026-11-26T09:30:00Z') / 1000,
    );
    // lateness observed once per slot, on its first recording: 0.2 s and 7 s
    expect(sampleValue(s, 'media_spaces_slot_start_lateness_seconds_count', L)).toBe(2);
    expect(sampleValue(s, 'media_spaces_slot_start_lateness_seconds_sum', L)).toBeCloseTo(7.2);
    expect(sampleValue(s, 'media_spaces_slot_start_lateness_seconds_bucket', { ...L, le: '0.5' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_slot_start_lateness_seconds_bucket', { ...L, le: '5' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_slot_start_lateness_seconds_bucket', { ...L, le: '10' })).toBe(2);
    expect(sampleValue(s, 'media_spaces_followup_jobs_total', { ...L, state: 'succeeded' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_followup_jobs_total', { ...L, state: 'failed' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_followup_jobs_total', { ...L, state: 'malfunctioned' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_followup_job_duration_seconds_count', L)).toBe(3);
    expect(sampleValue(s, 'media_spaces_followup_job_duration_seconds_bucket', { ...L, le: '60' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_followup_job_duration_seconds_bucket', { ...L, le: '14400' })).toBe(2);
    // never a slot or a job as a label
    for (const sample of s) expect(Object.keys(sample.labels)).not.toContain('slot');
    expect(text).not.toContain('j1');
  });

  it('an overrun: end lateness by the service clock, the overrun counted, outcome overran; a withdrawn next start goes', async () => {
    started();
    const future = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 3_600_000).toISOString();
    const next = new SlotStory({ start: future });
    next.go('planned', -60);
    expect(sampleValue(parseSamples(await render()), 'media_spaces_slot_next_start_timestamp_seconds', L)).toBe(
      Date.parse(future) / 1000,
    );
    // the guide ran out: the window has no next start any more
    next.go('planned', -30, { withdrawn: true });
    const s0 = parseSamples(await render());
    expect(s0.find((x) => x.name === 'media_spaces_slot_next_start_timestamp_seconds')).toBeUndefined();

    const a = new SlotStory({ start: '2026-11-26T08:00:00Z', minutes: 1 });
    a.go('starting', 0);
    a.go('recording', 7, { lateBy: 7, startedAt: '2026-11-26T08:00:07Z', channel: { id: 'a' } });
    a.go('stopping', 60);
    a.go('finishing', 76, { endedAt: '2026-11-26T08:01:15.500Z' });
    a.go('finished', 78, { endedAt: '2026-11-26T08:01:15.500Z', overrun: { by: 15.5, why: 'stop refused 503 ×14' } });
    const b = new SlotStory({ start: '2026-11-26T09:00:00Z', minutes: 1 });
    b.go('starting', 0);
    b.go('recording', 2, { lateBy: 2, channel: { id: 'b' } });
    b.go('stopping', 60);
    b.go('finished', 63, { endedAt: '2026-11-26T09:01:00.400Z' });
    const text = await render();
    expect(promtoolCheckMetrics(text).output).toBe('');
    const s = parseSamples(text);
    expect(sampleValue(s, 'media_spaces_slots_total', { ...L, outcome: 'overran' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_slots_total', { ...L, outcome: 'recorded' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_slot_overruns_total', L)).toBe(1);
    expect(sampleValue(s, 'media_spaces_slot_end_lateness_seconds_count', L)).toBe(2);
    expect(sampleValue(s, 'media_spaces_slot_end_lateness_seconds_sum', L)).toBeCloseTo(15.9);
    expect(sampleValue(s, 'media_spaces_slot_end_lateness_seconds_bucket', { ...L, le: '1' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_slot_end_lateness_seconds_bucket', { ...L, le: '30' })).toBe(2);
    expect(sampleValue(s, 'media_spaces_slot_start_lateness_seconds_sum', L)).toBeCloseTo(9);
  });

  it('counts requests by operation and status class, coordination failures and feed refreshes', async () => {
    started();
    requestEvents.publish({ operation: 'Submit job', method: 'POST', status: 201, duration: 3, attempt: 1 });
    requestEvents.publish({ operation: 'Submit job', method: 'POST', status: 503, duration: 3, attempt: 1 });
    requestEvents.publish({ operation: 'Submit job', method: 'POST', status: 202, duration: 3, attempt: 2 });
    requestEvents.publish({ operation: 'Get channel', method: 'GET', error: 'timeout', duration: 3, attempt: 1 });
    reportCoordinationFailure(new CoordinationError('unavailable', 'down'), 'EVALSHA');
    reportCoordinationFailure(new CoordinationError('closed', 'redeploy'), 'EVALSHA');
    reportFeedRefresh('tv-guide', true, 1_700_000_000_000);
    reportFeedRefresh('tv-guide', false);
    const text = await render();
    expect(promtoolCheckMetrics(text).output).toBe('');
    const s = parseSamples(text);
    expect(sampleValue(s, 'media_spaces_requests_total', { operation: 'submit_job', status_class: '2xx' })).toBe(2);
    expect(sampleValue(s, 'media_spaces_requests_total', { operation: 'submit_job', status_class: '5xx' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_requests_total', { operation: 'get_channel', status_class: 'timeout' })).toBe(
      1,
    );
    expect(sampleValue(s, 'media_spaces_coordination_failures_total')).toBe(1);
    expect(sampleValue(s, 'media_spaces_feed_refresh_failures_total', { feed: 'tv-guide' })).toBe(1);
    expect(sampleValue(s, 'media_spaces_feed_last_success_timestamp_seconds', { feed: 'tv-guide' })).toBe(
      1_700_000_000,
    );
  });

  it('a job outcome after a restart (its slot ended before) finds its labels in the slot key', async () => {
    started();
    new SlotStory({ start: '2026-11-26T08:00:00Z' }).job('stopped', 'j', 5);
    expect(
      sampleValue(parseSamples(await render()), 'media_spaces_followup_jobs_total', { ...L, state: 'stopped' }),
    ).toBe(1);
  });
});

describe('the text format (prom-client, private registry)', () => {
  it('escapes label values and help text, and writes cumulative buckets ending in +Inf', async () => {
    const families: Family[] = [
      {
        name: 't_total',
        help: 'a \\ back\nslash',
        type: 'counter',
        labelNames: ['v'],
        samples: [{ labels: { v: 'q"\\\nz' }, value: 3 }],
      },
      {
        name: 'h_seconds',
        help: 'h',
        type: 'histogram',
        labelNames: ['a'],
        histograms: [{ labels: { a: 'b' }, bounds: [0.5, 1], counts: [1, 2, 3], sum: 9.25 }],
      },
    ];
    const text = await render({ families: () => families });
    expect(text).toBe(
      [
        '# HELP t_total a \\\\ back\\nslash',
        '# TYPE t_total counter',
        't_total{v="q\\"\\\\\\nz"} 3',
        '',
        '# HELP h_seconds h',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{a="b",le="0.5"} 1',
        'h_seconds_bucket{a="b",le="1"} 3',
        'h_seconds_bucket{a="b",le="+Inf"} 6',
        'h_seconds_sum{a="b"} 9.25',
        'h_seconds_count{a="b"} 6',
        '',
      ].join('\n'),
    );
    expect(promtoolCheckMetrics(text).status).toBe(0);
    expect(parseSamples(text)[0].labels.v).toBe('q"\\\nz');
  });

  it('adds the process metrics under their prefix (event-loop lag, heap, GC, handles), and touches no global registry', async () => {
    const { register } = await import('prom-client');
    const before = register.getMetricsAsArray().length;
    started().knowWindow({ id: 'sched1', name: 'News' }, 'news');
    const text = await render(m, true);
    expect(promtoolProblems(text)).toEqual([]);
    const names = new Set(parseSamples(text).map((s) => s.name));
    for (const name of [
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_active_handles_total',
      'process_resident_memory_bytes',
    ]) {
      expect(names).toContain(`${PROCESS_METRICS_PREFIX}${name}`);
    }
    expect(text).toContain(`# TYPE ${PROCESS_METRICS_PREFIX}nodejs_gc_duration_seconds histogram`);
    expect(names).toContain('media_spaces_slots_total');
    expect(register.getMetricsAsArray().length).toBe(before);
  });
});

describe('the channels the sidebar plugin listens on before monitoring starts', () => {
  it('are the channels the library publishes on', async () => {
    const { MONITORED_CHANNELS } = await import('../../../nodes/sidebar/monitoring');
    const { slotJobs, slotTransitions } = await import('../../../lib/schedule/slot-events');
    const { coordinationFailures } = await import('../../../lib/coordination/failure-events');
    const { feedEvents } = await import('../../../lib/feed-events');
    const { serviceClockEvents } = await import('../../../lib/service-clock');
    expect(MONITORED_CHANNELS).toEqual(
      [
        slotTransitions,
        slotJobs,
        requestEvents,
        coordinationFailures,
        feedEvents,
        scheduleWindows,
        serviceClockEvents,
      ].map((c) => c.name),
    );
  });
});
