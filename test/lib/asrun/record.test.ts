import { describe, expect, it } from 'vitest';
import { type AsRunEntry, foldRecords } from '../../../lib/asrun';
import { SlotStory } from '../../support/slot-transitions';

const entries = (story: SlotStory): AsRunEntry[] => story.published.map((event) => ({ kind: 'slot', event }));

function recordedStory(start = '2026-11-26T17:58:00Z') {
  const s = new SlotStory({ start, title: 'News', episode: 'S1E4' });
  const length = (s.end - s.start) / 1000;
  s.to('starting', 0, { attempts: 2 });
  s.to('recording', 3.5, { lateBy: 3.5, channel: { id: 'ch1' } });
  s.to('stopping', length);
  s.to('finishing', length + 2, { channel: { id: 'ch1' } });
  s.to('finished', length + 9, { channel: { id: 'ch1', outputs: [{ uri: 's3://b/ch1.mxf' }] } });
  return s;
}

describe('as-run records folded from slot transitions', () => {
  it('a recorded slot: actual start and end, lateness, channels with outputs, attempts, the job', () => {
    const s = recordedStory();
    const job: AsRunEntry = {
      kind: 'job',
      at: '2026-11-26T18:40:00Z',
      event: { slot: s.slot, job: { id: 'j1', state: 'succeeded', elapsed: 61.5, workflowId: 'wf' } },
    };
    const [r, ...rest] = foldRecords([...entries(s), job]);
    expect(rest).toEqual([]);
    expect(r).toEqual({
      slot: s.slot,
      schedule: { id: 'sched1', name: 'Evening news' },
      window: { id: 'news', zone: 'Europe/Paris' },
      occurrence: {
        id: '2026-11-26T17:59:00Z',
        title: 'News',
        episode: 'S1E4',
        start: '2026-11-26T17:59:00Z',
        end: '2026-11-26T18:27:00Z',
      },
      scheduled: { start: '2026-11-26T17:58:00Z', end: '2026-11-26T18:28:00Z' },
      actual: { start: '2026-11-26T17:58:03.500Z', end: '2026-11-26T18:28:02Z' },
      lateBy: 3.5,
      channels: [{ id: 'ch1', outputs: [{ uri: 's3://b/ch1.mxf' }] }],
      gaps: [],
      interruptions: 0,
      attempts: 2,
      job: { id: 'j1', state: 'succeeded', elapsed: 61.5, workflowId: 'wf' },
      outcome: 'recorded',
      phase: 'finished',
      discrepancy: 'started 4 s late',
    });
  });

  it('is the same record whatever the order and however often entries come (two stores, two instances)', () => {
    const s = recordedStory();
    const once = foldRecords(entries(s));
    const shuffled = [...entries(s)].reverse();
    expect(foldRecords([...shuffled, ...entries(s)])).toEqual(once);
  });

  it('a partial slot: two segments, the gap and the interruption with their reasons', () => {
    const s = new SlotStory({ start: '2026-11-26T20:00:00Z', minutes: 60 });
    s.to('starting', 0);
    s.to('recording', 0.4, { lateBy: 0.4, channel: { id: 'a' } });
    s.to('interrupted', 600, { why: 'continuity fault', channel: { id: 'a' } });
    s.to('recording', 660, { channel: { id: 'b' } });
    s.to('stopping', 3600);
    s.to('finishing', 3601);
    s.to('partial', 3605, {
      why: 'lost 60 s to a continuity fault',
      gaps: [{ from: '2026-11-26T20:10:00Z', to: '2026-11-26T20:11:00Z', why: 'continuity fault' }],
    });
    const [r] = foldRecords(entries(s));
    expect(r).toMatchObject({
      outcome: 'partial',
      reason: 'lost 60 s to a continuity fault',
      actual: { start: '2026-11-26T20:00:00.400Z', end: '2026-11-26T21:00:01Z' },
      channels: [{ id: 'a' }, { id: 'b' }],
      interruptions: 1,
      gaps: [{ why: 'continuity fault' }],
      discrepancy: 'partial: lost 60 s to a continuity fault; interrupted 1 time (continuity fault)',
    });
  });

  it('a slot ends once: a final phase told again later (an end replayed after a restart) changes nothing', () => {
    const s = new SlotStory({ start: '2026-11-26T20:00:00Z', minutes: 60 });
    s.to('starting', 0);
    s.to('recording', 1, { channel: { id: 'a' } });
    s.to('interrupted', 600, { why: 'continuity fault', channel: { id: 'a' } });
    s.to('recording', 660, { channel: { id: 'b' } });
    s.to('stopping', 3600);
    s.to('finishing', 3601);
    s.to('partial', 3605, {
      why: 'recording interrupted 1 time: continuity fault',
      gaps: [{ from: '2026-11-26T20:10:00Z', to: '2026-11-26T20:11:00Z', why: 'continuity fault' }],
    });
    const before = foldRecords(entries(s));
    // what the schedule publishes for an end it replays after a restart: a fresh life, recording to finished
    s.to('finished', 7200, { from: 'recording', channel: { id: 'b', outputs: ['s3://b/b.mxf'] } });
    expect(foldRecords(entries(s))).toEqual(before);
    expect(before[0]).toMatchObject({ outcome: 'partial', actual: { end: '2026-11-26T21:00:01Z' } });
  });

  it('missed, skipped and cancelled slots: no actual times, the reason as the discrepancy', () => {
    const missed = new SlotStory({ start: '2026-11-26T06:00:00Z' });
    missed.to('starting', 0, { attempts: 1 });
    missed.to('missed', 120, { why: 'create channel failed: 503', attempts: 4 });
    const skipped = new SlotStory({ start: '2026-11-26T07:00:00Z' });
    skipped.to('skipped', -3600, { why: 'skipped by an operator' });
    const cancelled = new SlotStory({ start: '2026-11-26T08:00:00Z' });
    cancelled.to('cancelled', -60, { why: 'the window was removed' });
    const records = foldRecords([...entries(cancelled), ...entries(missed), ...entries(skipped)]);
    expect(records.map((r) => [r.outcome, r.reason, r.actual, r.attempts, r.discrepancy])).toEqual([
      ['missed', 'create channel failed: 503', {}, 4, 'missed: create channel failed: 503'],
      ['skipped', 'skipped by an operator', {}, undefined, 'skipped: skipped by an operator'],
      ['cancelled', 'the window was removed', {}, undefined, 'cancelled: the window was removed'],
    ]);
  });

  it('a slot still running is open; a failed follow-up is a discrepancy; a job of an unknown slot is left out', () => {
    const running = new SlotStory({ start: '2026-11-26T10:00:00Z' });
    running.to('starting', 0);
    running.to('recording', 0, { lateBy: 0, channel: { id: 'c' } });
    const done = recordedStory('2026-11-26T09:00:00Z');
    const records = foldRecords([
      ...entries(running),
      ...entries(done),
      { kind: 'job', at: '2026-11-26T10:00:00Z', event: { slot: done.slot, job: { id: 'j', state: 'failed' } } },
      {
        kind: 'job',
        at: '2026-11-26T10:00:00Z',
        event: { slot: 'x:y:2026-11-20T00:00:00Z', job: { id: 'k', state: 'failed' } },
      },
    ]);
    expect(records.map((r) => [r.outcome, r.phase, r.actual.end, r.discrepancy])).toEqual([
      ['recorded', 'finished', '2026-11-26T09:30:02Z', 'started 4 s late; follow-up job j failed'],
      ['open', 'recording', undefined, undefined],
    ]);
  });

  it("an overrun: actual start and end are the service's, the outcome overran, the discrepancy says late and by how much", () => {
    const s = new SlotStory({ start: '2026-11-26T17:58:00Z', minutes: 1 });
    s.to('starting', 0, { attempts: 1 });
    // the schedule saw the channel at 5 s; the service began recording at 7 s
    s.to('recording', 8, { lateBy: 7, startedAt: '2026-11-26T17:58:07Z', channel: { id: 'ch1' } });
    s.to('stopping', 60);
    s.to('finishing', 76, { channel: { id: 'ch1' }, endedAt: '2026-11-26T17:59:15.200Z' });
    s.to('finished', 79, {
      channel: { id: 'ch1' },
      endedAt: '2026-11-26T17:59:15.200Z',
      overrun: { by: 15.2, why: 'stop refused 503 ×14' },
    });
    const [r] = foldRecords(entries(s));
    expect(r.actual).toEqual({ start: '2026-11-26T17:58:07Z', end: '2026-11-26T17:59:15.200Z' });
    expect(r.lateBy).toBe(7);
    expect(r.overrunBy).toBe(15.2);
    expect(r.outcome).toBe('overran');
    expect(r.discrepancy).toBe('started 7 s late; overran by 15 s: stop refused 503 ×14');
  });

  it('a recording that began only after the window ended carries its start on the stop', () => {
    const s = new SlotStory({ start: '2026-11-26T17:58:00Z', minutes: 1 });
    s.to('starting', 0, { attempts: 1 });
    s.to('stopping', 60);
    s.to('finishing', 62, { lateBy: 61, startedAt: '2026-11-26T17:59:01Z', endedAt: '2026-11-26T17:59:02Z' });
    s.to('finished', 64, { endedAt: '2026-11-26T17:59:02Z' });
    const [r] = foldRecords(entries(s));
    expect(r.actual).toEqual({ start: '2026-11-26T17:59:01Z', end: '2026-11-26T17:59:02Z' });
    expect(r.lateBy).toBe(61);
    expect(r.outcome).toBe('recorded');
    expect(r.discrepancy).toBe('started 61 s late');
  });
});
