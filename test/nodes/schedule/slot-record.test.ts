import { afterEach, describe, expect, it } from 'vitest';
import { loadScheduleYaml } from '../../../lib/schedule/config';
import { Scheduler, type SchedulerState, type SchedulerStore } from '../../../lib/schedule/scheduler';
import { SlotLives } from '../../../nodes/schedule/slot-life';
import { ManualClock } from '../../support/manual-clock';
import { quietHost } from '../../support/slot-life-host';

/**
 * A slot's segments (its channel, the channels lost before it, the gaps) are one record: the scheduler's
 * journaled slot in progress, which the slot's life reads and changes, never a copy kept in step. An
 * interruption is in the journal as it happens, a restart takes it up from there, and the replacement's
 * recording closes the very gap the journal holds.
 */

/** Keeps every state as given (a store may): what the slot's life changes later must not reach a saved one. */
class KeepingStore implements SchedulerStore {
  saved: SchedulerState[] = [];
  load() {
    const last = this.saved.at(-1);
    return last === undefined ? undefined : structuredClone(last);
  }
  save(state: SchedulerState) {
    this.saved.push(state);
  }
  get last(): SchedulerState {
    return this.saved.at(-1) as SchedulerState;
  }
}

const YAML = `windows:
  - id: desk
    cron: "* * * * *"
    timezone: UTC
    duration: 10m
`;

const running: { stop(): void }[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.stop();
});

/** A scheduler on `store` and the lives of its slots, wired as the schedule node wires them. */
async function instance(clock: ManualClock, store: KeepingStore) {
  const lives: SlotLives[] = [];
  const scheduler = new Scheduler({
    scheduleId: 'sched',
    config: loadScheduleYaml(YAML),
    clock,
    store,
    catchUp: false,
    onStart: (e) => lives[0].starting(e.slot),
    onEnd: () => undefined,
    onMissed: () => undefined,
    onError: (err) => {
      throw err;
    },
  });
  lives.push(
    new SlotLives(
      quietHost({
        alarmAfterMs: () => 60_000,
        readsChannels: () => false,
        record: (key) => scheduler.segments(key),
        keep: (slot) => scheduler.segmentsChanged(slot.key),
      }),
    ),
  );
  running.push(scheduler, { stop: () => lives[0].close() });
  await scheduler.start();
  return { scheduler, lives: lives[0] };
}

describe("a slot's segments: one record, journaled", () => {
  it('an interruption is journaled as it happens, taken up after a restart, and its gap closed there', async () => {
    // the scheduler's clock one second before a minute that began on the wall clock (the slot's life reads it)
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const clock = new ManualClock(minute - 1000, { strictDelays: true });
    const store = new KeepingStore();
    const first = await instance(clock, store);
    await clock.advance(1000);
    const [slot] = first.scheduler.activeSlots();
    expect(slot.start).toBe(minute);

    const ch1 = { id: 'ch-1', state: 'RECORDING' };
    first.scheduler.rememberChannel(slot.key, ch1);
    first.lives.recording(slot, ch1);
    expect(first.lives.view(slot.key)?.phase).toBe('recording');
    const beforeLoss = store.last;

    first.lives.interrupt(slot, 'ERROR');
    // journaled by the interruption's own transition, nothing copied across by the node
    const journaled = store.last.active.find((s) => s.key === slot.key);
    expect(journaled?.channel).toBeUndefined();
    expect(journaled?.earlier).toEqual([ch1]);
    expect(journaled?.gaps).toEqual([{ from: expect.any(Number), why: 'ERROR' }]);
    // the scheduler's record and the life's view are the same facts
    expect(first.scheduler.segments(slot.key)?.earlier).toEqual([ch1]);
    expect(first.lives.view(slot.key)?.earlier.map((c) => c.id)).toEqual(['ch-1']);
    // a state saved before is left as it was saved
    expect(beforeLoss.active.find((s) => s.key === slot.key)).toMatchObject({ channel: ch1 });
    expect(beforeLoss.active.find((s) => s.key === slot.key)?.earlier).toBeUndefined();

    // a restart: a new scheduler reads the journal, a new set of lives takes the slot up from its record
    first.lives.close();
    first.scheduler.stop();
    const second = await instance(clock, store);
    const [restored] = second.scheduler.activeSlots();
    second.lives.restore(restored, restored, restored.startFailure);
    const view = second.lives.view(slot.key);
    expect(view?.phase).toBe('interrupted');
    expect(view?.earlier.map((c) => c.id)).toEqual(['ch-1']);
    expect(view?.gaps).toHaveLength(1);
    expect(view?.gaps[0].to).toBeUndefined();

    // the replacement records: the gap in the journal closes, the channel is the replacement's
    const ch2 = { id: 'ch-2', state: 'RECORDING' };
    second.scheduler.rememberChannel(slot.key, ch2);
    second.lives.recording(restored, ch2);
    expect(second.lives.view(slot.key)?.phase).toBe('recording');
    const after = store.last.active.find((s) => s.key === slot.key);
    expect(after?.channel).toEqual(ch2);
    expect(after?.earlier).toEqual([ch1]);
    expect(after?.gaps?.[0].to).toBeGreaterThanOrEqual(after?.gaps?.[0].from ?? Number.POSITIVE_INFINITY);
  });
});
