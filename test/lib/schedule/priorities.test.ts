import { afterEach, describe, expect, it } from 'vitest';
import { foldRecords } from '../../../lib/asrun/record';
import { loadScheduleYaml } from '../../../lib/schedule/config';
import { type Contender, compareRank, decideConflicts } from '../../../lib/schedule/conflicts';
import { previewSchedule } from '../../../lib/schedule/preview';
import {
  type MissedEvent,
  Scheduler,
  type SchedulerState,
  type SchedulerStore,
  type StartEvent,
} from '../../../lib/schedule/scheduler';
import type { SlotTransition } from '../../../lib/schedule/slot-events';
import { ManualClock } from '../../support/manual-clock';

const MIN = 60_000;
const c = (key: string, startMin: number, endMin: number, priority = 0, order = 0, title?: string): Contender => ({
  key,
  windowId: key,
  start: startMin * MIN,
  end: endMin * MIN,
  priority,
  order,
  ...(title ? { title } : {}),
});

const winners = (entries: Contender[], limit: number) => [...decideConflicts(entries, limit).winners].sort();
const losers = (entries: Contender[], limit: number) =>
  [...decideConflicts(entries, limit).losers.values()].map((l) => [l.key, l.lostTo.map((w) => w.key)]);

describe('decideConflicts: the priority rule', () => {
  it('priorities 3, 2, 1, 0 over the same hour with max_channels 2: the two highest record, each loser lost to both', () => {
    const plan = [c('p0', 0, 60, 0, 3), c('p2', 0, 60, 2, 1), c('p1', 0, 60, 1, 2), c('p3', 0, 60, 3, 0)];
    expect(winners(plan, 2)).toEqual(['p2', 'p3']);
    expect(losers(plan, 2)).toEqual([
      ['p1', ['p3', 'p2']],
      ['p0', ['p3', 'p2']],
    ]);
    const loss = decideConflicts(plan, 2).losers.get('p1');
    expect(loss).toMatchObject({ limit: 2, concurrent: 3 });
  });

  it('the same decision whatever the order the plan is given in (every instance, every restart)', () => {
    const plan = [c('a', 0, 60, 1), c('b', 10, 50, 1), c('c', 20, 40, 0), c('d', 30, 90, 2), c('e', 45, 70, 0)];
    const first = decideConflicts(plan, 2);
    for (const shuffled of [[...plan].reverse(), [plan[2], plan[4], plan[0], plan[3], plan[1]]]) {
      const again = decideConflicts(shuffled, 2);
      expect([...again.winners].sort()).toEqual([...first.winners].sort());
      expect([...again.losers.keys()]).toEqual([...first.losers.keys()]);
    }
  });

  it('ties of priority go to the earlier start, then to the earlier window of the document, then to the key', () => {
    // same priority, b starts first: b records
    expect(winners([c('a', 10, 60), c('b', 0, 60)], 1)).toEqual(['b']);
    // same priority and start: the window listed first (order 0) records
    expect(winners([c('x', 0, 60, 0, 1), c('y', 0, 60, 0, 0)], 1)).toEqual(['y']);
    // same everything but the key
    expect(winners([c('n', 0, 60), c('m', 0, 60)], 1)).toEqual(['m']);
    // priority beats an earlier start
    expect(winners([c('early', 0, 60, 0), c('late', 30, 90, 1)], 1)).toEqual(['late']);
    expect(compareRank(c('a', 0, 1, 5), c('b', 0, 1, 4))).toBeLessThan(0);
  });

  it('a chain of overlaps: a loser takes no channel, so what it overlaps further on may record', () => {
    // limit 1: C (highest) beats B; A overlaps only B, which does not record, so A records
    const chain = [c('A', 0, 10, 0), c('B', 5, 15, 1), c('C', 12, 20, 2)];
    expect(winners(chain, 1)).toEqual(['A', 'C']);
    expect(losers(chain, 1)).toEqual([['B', ['C']]]);
    // a longer chain with limit 2: each hour-long entry starting every 20 minutes, rising priorities.
    // k5 and k4 record; k3 would make three in 100-120 and loses to them; k2 overlaps k4 alone (k5 starts
    // as it ends) and records; k1 overlaps k2 alone and records; k0 would make three in 40-60 and loses.
    const long = Array.from({ length: 6 }, (_, i) => c(`k${i}`, i * 20, i * 20 + 60, i));
    const d = decideConflicts(long, 2);
    expect([...d.winners].sort()).toEqual(['k1', 'k2', 'k4', 'k5']);
    expect(losers(long, 2)).toEqual([
      ['k3', ['k5', 'k4']],
      ['k0', ['k2', 'k1']],
    ]);
  });

  it('back to back is no overlap; running entries keep their channels whatever their rank', () => {
    expect(losers([c('a', 0, 30), c('b', 30, 60), c('c', 60, 90)], 1)).toEqual([]);
    const running = { ...c('low', 0, 60, 0), running: true };
    expect(winners([running, c('high', 10, 40, 9)], 1)).toEqual(['low']);
  });

  it('no usable limit: everything records', () => {
    const plan = [c('a', 0, 10), c('b', 0, 10)];
    expect(winners(plan, 0)).toEqual(['a', 'b']);
    expect(winners(plan, Number.NaN)).toEqual(['a', 'b']);
  });

  it('decides a plan of 10,000 overlapping entries at once', () => {
    const plan = Array.from({ length: 10_000 }, (_, i) =>
      c(`k${String(i).padStart(5, '0')}`, i * 10, i * 10 + 60, i % 4),
    );
    const d = decideConflicts(plan, 4);
    expect(d.winners.size + d.losers.size).toBe(10_000);
    // at no instant do more than 4 winners record
    const edges = plan
      .filter((e) => d.winners.has(e.key))
      .flatMap(
        (e): Array<[number, number]> => [
          [e.start, 1],
          [e.end, -1],
        ],
      )
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let now = 0;
    let peak = 0;
    for (const [, step] of edges) {
      now += step;
      peak = Math.max(peak, now);
    }
    expect(peak).toBe(4);
  });
});

class MemoryStore implements SchedulerStore {
  state: SchedulerState | undefined;
  load() {
    return this.state === undefined ? undefined : structuredClone(this.state);
  }
  save(state: SchedulerState) {
    this.state = structuredClone(state);
  }
}

const FOUR = `max_channels: 2
windows:
  - { id: p0, cron: "0 18 * * *", timezone: UTC, duration: 1h, priority: 0 }
  - { id: p1, cron: "0 18 * * *", timezone: UTC, duration: 1h, priority: 1 }
  - { id: p2, cron: "0 18 * * *", timezone: UTC, duration: 1h, priority: 2 }
  - { id: p3, cron: "0 18 * * *", timezone: UTC, duration: 1h, priority: 3 }
`;
const AT = Date.parse('2030-01-07T17:59:00Z');
const running: Scheduler[] = [];
afterEach(() => {
  for (const s of running.splice(0)) s.stop();
});

async function start(clock: ManualClock, store: MemoryStore, yaml = FOUR) {
  const starts: StartEvent[] = [];
  const missed: MissedEvent[] = [];
  const scheduler = new Scheduler({
    scheduleId: 's',
    config: loadScheduleYaml(yaml),
    clock,
    store,
    onStart: (e) => starts.push(e),
    onEnd: () => undefined,
    onMissed: (e) => missed.push(e),
  });
  running.push(scheduler);
  await scheduler.start();
  return { scheduler, starts, missed };
}

describe('the scheduler holds the losers back at their start', () => {
  it('starts the two highest, holds the two lowest (never started) with what they lost to; the decision survives a restart', async () => {
    const clock = new ManualClock(AT, { strictDelays: true });
    const store = new MemoryStore();
    const { scheduler, starts, missed } = await start(clock, store);
    const ahead = scheduler.conflictDecision(clock.now(), clock.now() + 2 * 3600_000);
    expect([...(ahead?.losers.keys() ?? [])]).toEqual(['s:p1:2030-01-07T18:00:00Z', 's:p0:2030-01-07T18:00:00Z']);
    await clock.advance(60_000);
    expect(starts.map((e) => e.slot.windowId).sort()).toEqual(['p2', 'p3']);
    expect(missed.map((e) => [e.slot.windowId, e.why, e.lostTo?.map((w) => w.windowId)])).toEqual([
      ['p0', 'conflict', ['p3', 'p2']],
      ['p1', 'conflict', ['p3', 'p2']],
    ]);
    expect(scheduler.heldSlots().map((s) => s.windowId)).toEqual(['p0', 'p1']);

    // a restart mid-window: nothing more is started, the losers still wait
    scheduler.stop();
    await clock.advance(5 * MIN);
    const again = await start(clock, store);
    await clock.advance(1000);
    expect(again.starts).toEqual([]);
    expect(again.missed).toEqual([]);
    expect(again.scheduler.heldSlots().map((s) => s.windowId)).toEqual(['p0', 'p1']);
  });

  it('a winner cancelled mid-way (its occurrence gone, on_cancel: stop): the best waiting loser starts at once, late', async () => {
    const yaml = `max_channels: 2
windows:
${['p0', 'p1', 'p2', 'p3'].map((id, i) => `  - { id: ${id}, messages: true, priority: ${i} }`).join('\n')}
`;
    const clock = new ManualClock(AT, { strictDelays: true });
    const { scheduler, starts, missed } = await start(clock, new MemoryStore(), yaml);
    const occ = {
      id: 'o',
      start: AT + MIN,
      end: AT + 61 * MIN,
      programme: { title: 'x', start: AT + MIN, end: AT + 61 * MIN },
    };
    for (const id of ['p0', 'p1', 'p2', 'p3'])
      scheduler.setOccurrences(
        id,
        [{ ...occ, programme: { ...occ.programme, title: `Show ${id}` } }],
        Number.POSITIVE_INFINITY,
      );
    await clock.advance(MIN);
    expect(starts.map((e) => e.slot.windowId).sort()).toEqual(['p2', 'p3']);
    expect(missed.find((e) => e.slot.windowId === 'p1')?.lostTo?.map((w) => w.title)).toEqual(['Show p3', 'Show p2']);
    await clock.advance(10 * MIN);
    scheduler.setOccurrences('p3', [], Number.POSITIVE_INFINITY, { stopCancelled: true });
    const freed = starts.filter((e) => e.freed);
    expect(freed.map((e) => [e.slot.windowId, e.slot.start])).toEqual([['p1', AT + MIN]]);
    expect(scheduler.heldSlots().map((s) => s.windowId)).toEqual(['p0']);
    expect(
      scheduler
        .activeSlots()
        .map((s) => s.windowId)
        .sort(),
    ).toEqual(['p1', 'p2']);
  });

  it('no max_channels: every start is tried, nothing is held', async () => {
    const clock = new ManualClock(AT, { strictDelays: true });
    const { scheduler, starts, missed } = await start(clock, new MemoryStore(), FOUR.replace('max_channels: 2\n', ''));
    await clock.advance(60_000);
    expect(starts).toHaveLength(4);
    expect(missed).toEqual([]);
    expect(scheduler.conflictDecision(clock.now(), clock.now() + 3600_000)).toBeUndefined();
  });
});

describe('the preview shows the decision', () => {
  it('marks each listed start that would not record with what it loses to, and the windows’ priorities', () => {
    const res = previewSchedule({ yaml: FOUR, count: 2, now: AT });
    expect(res.ok).toBe(true);
    expect(res.max_channels).toBe(2);
    const shown = Object.fromEntries(res.windows.map((w) => [w.id, w]));
    expect(shown.p3.priority).toBe(3);
    expect(shown.p3.next.map((n) => n.lost_to)).toEqual([undefined, undefined]);
    expect(shown.p2.next.map((n) => n.lost_to)).toEqual([undefined, undefined]);
    expect(shown.p1.next[0].lost_to).toEqual(['p3 Mon 7 Jan 18:00 UTC', 'p2 Mon 7 Jan 18:00 UTC']);
    expect(shown.p0.next[1].lost_to).toEqual(['p3 Tue 8 Jan 18:00 UTC', 'p2 Tue 8 Jan 18:00 UTC']);
  });
});

describe('the as-run record of a loser that started once a channel freed up', () => {
  it('goes on from its skip: one record, late, saying why', () => {
    const base = {
      slot: 's:p1:x',
      schedule: { id: 'n', name: 'n' },
      window: { id: 'p1', zone: 'UTC' },
      occurrence: { id: 'x', start: '2030-01-07T18:00:00Z', end: '2030-01-07T19:00:00Z' },
      scheduled: { start: '2030-01-07T18:00:00Z', end: '2030-01-07T19:00:00Z' },
    };
    const events: SlotTransition[] = [
      { ...base, from: 'planned', to: 'skipped', at: '2030-01-07T18:00:00Z', why: 'conflict: lost to A, B' },
      {
        ...base,
        from: 'planned',
        to: 'starting',
        at: '2030-01-07T18:10:00Z',
        why: 'started after a channel freed up',
        revived: true,
      },
      {
        ...base,
        from: 'starting',
        to: 'recording',
        at: '2030-01-07T18:10:02Z',
        lateBy: 602,
        startedAt: '2030-01-07T18:10:02Z',
      },
      { ...base, from: 'recording', to: 'finished', at: '2030-01-07T19:00:01Z' },
    ];
    const [record] = foldRecords(events.map((event) => ({ kind: 'slot' as const, event })));
    expect(record).toMatchObject({ outcome: 'recorded', lateBy: 602, actual: { start: '2030-01-07T18:10:02Z' } });
    expect(record.reason).toBeUndefined();
    expect(record.discrepancy).toBe('started after a channel freed up; started 602 s late');
    // a loser that never got a channel stays skipped, with its reason
    const [skipped] = foldRecords([{ kind: 'slot' as const, event: events[0] }]);
    expect(skipped).toMatchObject({ outcome: 'skipped', reason: 'conflict: lost to A, B' });
  });
});
