import { afterEach, describe, expect, it } from 'vitest';
import { loadScheduleYaml } from '../../../lib/schedule/config';
import { Scheduler, type SchedulerState, type SchedulerStore } from '../../../lib/schedule/scheduler';
import type { SlotTransition } from '../../../lib/schedule/slot-events';
import { slotTransitions } from '../../../lib/schedule/slot-events';
import { SlotLives } from '../../../lib/schedule/slot-lives';
import { reportStart } from '../../../lib/schedule/slot-starts';
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
const shown: { slot: string; stage: string; lateMs?: number; attempt?: number; note?: string }[] = [];
const told: SlotTransition[] = [];
const hear = (t: unknown) => told.push(t as SlotTransition);
slotTransitions.subscribe(hear);
afterEach(() => {
  for (const r of running.splice(0)) r.stop();
  shown.length = 0;
  told.length = 0;
});

/** A scheduler on `store` and the lives of its slots, wired as the schedule node wires them. */
async function instance(clock: ManualClock, store: KeepingStore, readsChannels = false) {
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
      ...quietHost({
        alarmAfterMs: () => 60_000,
        readsChannels: () => readsChannels,
        show: (slot, life) => shown.push({ slot: slot.key, ...life }),
        record: (key) => scheduler.record(key),
        keep: (slot) => scheduler.recordChanged(slot.key),
      }),
    ),
  );
  running.push(scheduler, { stop: () => lives[0].close() });
  await scheduler.start();
  return { scheduler, lives: lives[0] };
}

/** The first run of a schedule whose window started a moment ago: its slot in progress, journaled to `store`. */
async function firstRun() {
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const clock = new ManualClock(minute - 1000, { strictDelays: true });
  const store = new KeepingStore();
  const first = await instance(clock, store, true);
  await clock.advance(1000);
  const [slot] = first.scheduler.activeSlots();
  return { clock, store, first, slot };
}

/** A slot recording on its channel, journaled by a scheduler stopped since (Node-RED killed): the journal to read. */
async function journaledRecording() {
  const { clock, store, first, slot } = await firstRun();
  first.scheduler.rememberChannel(slot.key, { id: 'ch-1', state: 'RECORDING' });
  first.lives.close();
  first.scheduler.stop();
  return { clock, store, slot };
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
    expect(first.scheduler.record(slot.key)?.earlier).toEqual([ch1]);
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

  it('a channel still warming up at a restart is taken up as starting, and its start told when the service records', async () => {
    const { clock, store, first, slot } = await firstRun();

    // two failed attempts, then the channel: created, not recording yet (the service warms it up)
    reportStart(slot.key, { kind: 'attempt', attempt: 1, reason: 'HTTP 503', retryInMs: 1000 });
    reportStart(slot.key, { kind: 'attempt', attempt: 2, reason: 'HTTP 503', retryInMs: 1000 });
    const pending = { id: 'ch-1', state: 'PENDING' };
    first.scheduler.rememberChannel(slot.key, pending);
    reportStart(slot.key, { kind: 'started', channel: pending, attempts: 3, lateMs: 5000 });
    expect(first.lives.view(slot.key)?.phase).toBe('starting');
    expect(store.last.active.find((s) => s.key === slot.key)?.life).toMatchObject({
      awaiting: true,
      attempts: 3,
      heard: true,
    });

    // Node-RED killed while the channel warms up: the restart does not say it records
    first.lives.close();
    first.scheduler.stop();
    const second = await instance(clock, store, true);
    const [restored] = second.scheduler.activeSlots();
    second.lives.restore(restored, restored, restored.startFailure);
    expect(second.lives.view(slot.key)).toMatchObject({ phase: 'starting', attempts: 3, heard: true });
    expect(second.lives.recordingChannels().get(slot.key)).toBe('ch-1');
    expect(told.filter((t) => t.to === 'recording')).toEqual([]);

    // the recording watch's first read in RECORDING: the service's recording start, 7 s after the start
    const startedAt = new Date(slot.start + 7000).toISOString();
    second.lives.channelState('ch-1', 'RECORDING', {
      id: 'ch-1',
      state: 'RECORDING',
      recording: { started_at: startedAt },
    });
    expect(second.lives.view(slot.key)?.phase).toBe('recording');
    const began = told.filter((t) => t.to === 'recording');
    expect(began).toHaveLength(1);
    expect(began[0]).toMatchObject({ from: 'starting', startedAt, lateBy: 7, attempts: 3 });
    // journaled with the start: a second restart shows the slot recording, 7 s late, and tells nothing again
    expect(store.last.active.find((s) => s.key === slot.key)?.life).toMatchObject({ begun: true, lateMs: 7000 });
    expect(store.last.active.find((s) => s.key === slot.key)?.life?.awaiting).toBeUndefined();
    second.lives.close();
    second.scheduler.stop();
    shown.length = 0;
    const third = await instance(clock, store, true);
    const [again] = third.scheduler.activeSlots();
    third.lives.restore(again, again, again.startFailure);
    expect(third.lives.view(slot.key)?.phase).toBe('recording');
    expect(shown.at(-1)).toMatchObject({ slot: slot.key, stage: 'recording', lateMs: 7000 });
    expect(told.filter((t) => t.to === 'recording')).toHaveLength(1);
  });

  it('a journal of an earlier release (no life facts) is taken up as before: a slot with a channel records', async () => {
    const { clock, store, slot } = await journaledRecording();
    // as the release before wrote it: the channel, and no `life`
    expect(store.last.active.find((s) => s.key === slot.key)?.life).toBeUndefined();
    const second = await instance(clock, store, true);
    const [restored] = second.scheduler.activeSlots();
    expect(restored.life).toBeUndefined();
    second.lives.restore(restored, restored, restored.startFailure);
    expect(second.lives.view(slot.key)?.phase).toBe('recording');
    expect(told.filter((t) => t.slot === slot.key && t.to === 'recording')).toEqual([]);
  });

  it('a damaged `life` in the journal loses its facts, never the slot', async () => {
    const { clock, store, slot } = await journaledRecording();
    const written = store.last.active.find((s) => s.key === slot.key);
    expect(written).toBeDefined();
    const damaged = { awaiting: 'yes', attempts: 'three', stop: { acceptedAt: 'then' }, lateMs: 7000 } as never;
    store.saved.push({ ...store.last, active: [{ ...(written as NonNullable<typeof written>), life: damaged }] });
    const second = await instance(clock, store, true);
    const [restored] = second.scheduler.activeSlots();
    expect(restored.key).toBe(slot.key);
    expect(restored.life).toEqual({ lateMs: 7000 });
    second.lives.restore(restored, restored, restored.startFailure);
    expect(second.lives.view(slot.key)?.phase).toBe('recording');
  });
});
