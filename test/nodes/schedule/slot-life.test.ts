import diagnostics_channel from 'node:diagnostics_channel';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Slot } from '../../../lib/schedule';
import type { SlotTransition } from '../../../lib/schedule/slot-events';
import { type Channel, SlotLives, type SlotOut } from '../../../lib/schedule/slot-lives';
import type { SlotLife } from '../../../lib/schedule/slot-stage';
import { reportStart } from '../../../lib/schedule/slot-starts';
import { quietHost } from '../../support/slot-life-host';

const NOW = Date.now();
const slot: Slot = {
  key: 'news:w1:2026-11-26T18:00:00Z',
  windowId: 'w1',
  start: NOW - 5000,
  end: NOW + 60_000,
  reason: 'scheduled',
};

/** The lives of one schedule, with what they show the sidebar; `reads`: the schedule reads its channels. */
function lives(reads = false) {
  const shown: { key: string; life: SlotLife; channel?: Channel }[] = [];
  const machine = new SlotLives(
    ...quietHost({
      show: (s, life, channel) => shown.push({ key: s.key, life, ...(channel ? { channel: channel as Channel } : {}) }),
      readsChannels: () => reads,
    }),
  );
  return { machine, shown };
}

let open: SlotLives[] = [];
afterEach(() => {
  for (const m of open) m.close();
  open = [];
});

describe('SlotLives: the one record of a slot in progress', () => {
  it('a slot taken up from the journal is shown at once; one whose start was given up says why, not "starting"', () => {
    const { machine, shown } = lives();
    open.push(machine);
    machine.restore(slot, {}, { message: '503 Service Unavailable', attempts: 15 });
    expect(shown).toEqual([
      { key: slot.key, life: { stage: 'starting', attempt: 15, note: 'gave up: 503 Service Unavailable' } },
    ]);
    expect(machine.heardOf(slot.key)).toBe(true);

    machine.restore({ ...slot, key: 'other' }, { channel: { id: 'ch-7', state: 'RECORDING' } });
    expect(shown.at(-1)).toEqual({
      key: 'other',
      life: { stage: 'recording' },
      channel: { id: 'ch-7', state: 'RECORDING' },
    });
  });

  it("a channel's state read from the service is shown with the slot, and only for the channel the slot has now", () => {
    const { machine, shown } = lives();
    open.push(machine);
    machine.restore(slot, { channel: { id: 'ch-1', state: 'STARTING' } });
    machine.channelState('ch-1', 'RECORDING');
    expect(shown.at(-1)?.channel).toEqual({ id: 'ch-1', state: 'RECORDING' });
    const count = shown.length;
    machine.channelState('ch-1', 'RECORDING');
    machine.channelState('ch-unknown', 'ERROR');
    expect(shown.length).toBe(count);

    machine.stopping(slot, { id: 'ch-1', state: 'RECORDING' });
    expect(shown.at(-1)).toMatchObject({ life: { stage: 'stopping' }, channel: { id: 'ch-1', state: 'RECORDING' } });
    expect(machine.channelsIn(['stopping'])).toEqual(['ch-1']);
    expect(machine.channelsIn(['starting'])).toEqual([]);
  });

  it('a slot another instance ended leaves this one shown as ended there, not recording forever', () => {
    const { machine, shown } = lives();
    open.push(machine);
    machine.restore(slot, { channel: { id: 'ch-1', state: 'RECORDING' } });
    machine.forget(slot.key);
    expect(shown.at(-1)).toEqual({
      key: slot.key,
      life: { stage: 'finished', note: 'ended by another instance' },
      channel: { id: 'ch-1', state: 'RECORDING' },
    });
    expect(machine.view(slot.key)).toBeUndefined();
  });

  it('a start made alone (Redis unusable) is remembered with the slot, and goes with it', () => {
    const { machine } = lives();
    open.push(machine);
    machine.starting(slot);
    expect(machine.startedAlone(slot.key)).toBe(false);
    machine.startAlone(slot.key);
    expect(machine.startedAlone(slot.key)).toBe(true);
    machine.missed(slot, 'missed', 'nothing recorded');
    expect(machine.startedAlone(slot.key)).toBe(false);
  });

  it('a failing start is said once alarm_after passed, even when its timer fires a moment early by the wall clock', () => {
    vi.useFakeTimers();
    try {
      const start = Date.now();
      const early: Slot = { ...slot, key: 'news:w1:alarm', start, end: start + 6000 };
      const [reads] = quietHost({ alarmAfterMs: () => 2000 });
      const said: Extract<SlotOut, { kind: 'start-failing' }>[] = [];
      const machine = new SlotLives(reads, (effect) => {
        if (effect.kind === 'start-failing') said.push(effect);
      });
      open.push(machine);
      machine.starting(early);
      // the last failure before alarm_after: nothing to say yet
      vi.advanceTimersByTime(1990);
      reportStart(early.key, { kind: 'attempt', attempt: 2, reason: '503 Service Unavailable', retryInMs: 8000 });
      expect(said).toEqual([]);
      // the wall clock steps back 5 ms against the timers: the alarm's timer fires at 1,995 ms by Date.now()
      vi.setSystemTime(Date.now() - 5);
      vi.advanceTimersByTime(10);
      expect(Date.now() - start).toBeLessThan(2000 + 10);
      vi.advanceTimersByTime(10);
      expect(said).toEqual([
        { kind: 'start-failing', slot: early, failure: { attempts: 2, reason: '503 Service Unavailable' } },
      ]);
      // said once
      reportStart(early.key, { kind: 'attempt', attempt: 3, reason: '503 Service Unavailable', retryInMs: 8000 });
      vi.advanceTimersByTime(3000);
      expect(said).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  describe('times by the service clock', () => {
    const told: SlotTransition[] = [];
    const listen = (t: unknown) => told.push(t as SlotTransition);
    const iso = (ms: number) => new Date(ms).toISOString();
    /** A slot's whole life as the service times it: recording from `began`, stopped, its recording ended at `ended`. */
    const recordedThrough = (machine: SlotLives, s: Slot, began: number, ended: number, why?: string) => {
      const channel = { id: `ch-${s.key}`, state: 'RECORDING', recording: { started_at: iso(began) } };
      machine.starting(s);
      machine.recording(s, channel);
      machine.stopping(s, channel);
      const stopped = {
        ...channel,
        state: 'FINISHING_RECORDING',
        recording: { started_at: iso(began), ended_at: iso(ended) },
      };
      machine.finishing(s, stopped, why);
      machine.finished(s, { ...stopped, state: 'INACTIVE' });
    };

    it('a channel created late is starting until the service says it records; lateBy from recording.started_at', () => {
      told.length = 0;
      diagnostics_channel.subscribe('media-spaces:slot', listen);
      try {
        const { machine, shown } = lives(true);
        open.push(machine);
        machine.starting(slot);
        // create channel (through the controller, then directly): the channel, PENDING, no recording yet
        machine.recording(slot, { id: 'ch-1', state: 'PENDING' });
        machine.recording(slot, { id: 'ch-1', state: 'PENDING' });
        expect(machine.view(slot.key)?.phase).toBe('starting');
        expect(shown.at(-1)).toMatchObject({ life: { stage: 'starting' }, channel: { id: 'ch-1', state: 'PENDING' } });
        expect(machine.recordingChannels()).toEqual(new Map([[slot.key, 'ch-1']]));
        machine.channelState('ch-1', 'ACTIVE', { id: 'ch-1', state: 'ACTIVE' });
        expect(machine.view(slot.key)?.phase).toBe('starting');
        // the service's recording started 7 s after the slot's (padded) start
        const began = slot.start + 7000;
        machine.channelState('ch-1', 'RECORDING', {
          id: 'ch-1',
          state: 'RECORDING',
          recording: { started_at: iso(began) },
        });
        expect(machine.view(slot.key)?.phase).toBe('recording');
        expect(shown.at(-1)?.life).toEqual({ stage: 'recording', lateMs: 7000 });
        const recording = told.filter((t) => t.slot === slot.key && t.to === 'recording');
        expect(recording).toHaveLength(1);
        expect(recording[0]).toMatchObject({ lateBy: 7, startedAt: iso(began) });
      } finally {
        diagnostics_channel.unsubscribe('media-spaces:slot', listen);
      }
    });

    it('without a server to read, the slot records from when its channel is known (as late as that)', () => {
      told.length = 0;
      diagnostics_channel.subscribe('media-spaces:slot', listen);
      try {
        const { machine } = lives(false);
        open.push(machine);
        machine.starting(slot);
        machine.recording(slot, { id: 'ch-2', state: 'PENDING' });
        expect(machine.view(slot.key)?.phase).toBe('recording');
        const t = told.find((x) => x.slot === slot.key && x.to === 'recording');
        // the slot started 5 s ago
        expect(t?.lateBy).toBeGreaterThanOrEqual(5);
      } finally {
        diagnostics_channel.unsubscribe('media-spaces:slot', listen);
      }
    });

    it('an end more than 5 s past the scheduled end is an overrun, with the stop refusals as its why', () => {
      told.length = 0;
      diagnostics_channel.subscribe('media-spaces:slot', listen);
      try {
        const { machine, shown } = lives(true);
        open.push(machine);
        const began = slot.start + 1000;
        const ended = slot.end + 15_000;
        recordedThrough(machine, slot, began, ended, 'stop refused 503 ×14');
        const mine = told.filter((t) => t.slot === slot.key);
        expect(mine.map((t) => t.to)).toEqual(['starting', 'recording', 'stopping', 'finishing', 'finished']);
        expect(mine[1]).toMatchObject({ lateBy: 1, startedAt: iso(began) });
        expect(mine[3].endedAt).toBe(iso(ended));
        expect(mine[4]).toMatchObject({ endedAt: iso(ended), overrun: { by: 15, why: 'stop refused 503 ×14' } });
        expect(shown.at(-1)?.life.note).toBe('overran by 15 s: stop refused 503 ×14');
      } finally {
        diagnostics_channel.unsubscribe('media-spaces:slot', listen);
      }
    });

    it("the service's clock 10.3 s ahead: said once, and carried by the transitions with the service's times", () => {
      told.length = 0;
      diagnostics_channel.subscribe('media-spaces:slot', listen);
      try {
        const warnings: string[] = [];
        let reading = { offsetMs: 10_260, withinMs: 40 };
        const machine = new SlotLives(
          ...quietHost({
            readsChannels: () => true,
            serviceClock: () => reading,
            warn: (text) => warnings.push(text),
          }),
        );
        open.push(machine);
        const other = { ...slot, key: `${slot.key}-b` };
        for (const s of [slot, other]) recordedThrough(machine, s, s.start + 12_000, s.end + 10_000);
        // two slots, one warning: the same difference
        expect(warnings).toEqual([
          "the service's clock is 10.3 s ahead of this host's: recordings start and stop by this host's clock, so the service times them 10.3 s late by its own (the as-run log says so); set this host's clock by NTP",
        ]);
        const mine = told.filter((t) => t.slot === slot.key);
        expect(mine.map((t) => [t.to, t.clockOffset])).toEqual([
          ['starting', undefined],
          ['recording', 10.3],
          ['stopping', undefined],
          ['finishing', 10.3],
          ['finished', 10.3],
        ]);
        // stopped at the end by this host's clock: 10 s past it by the service's, and that is why
        expect(mine[4].overrun).toEqual({ by: 10, why: "the stop went at the end by this host's clock" });
        // within what the answers tell, 2 s or less is not told
        reading = { offsetMs: 2_100, withinMs: 200 };
        const third = { ...slot, key: `${slot.key}-c` };
        machine.starting(third);
        machine.recording(third, { id: 'ch-c', state: 'RECORDING', recording: { started_at: iso(third.start) } });
        expect(told.find((t) => t.slot === third.key && t.to === 'recording')?.clockOffset).toBeUndefined();
        expect(warnings).toHaveLength(1);
        // apart again after agreeing: a new difference, told again; a drifting estimate while apart is not
        reading = { offsetMs: -6_000, withinMs: 100 };
        const fourth = { ...slot, key: `${slot.key}-d` };
        machine.starting(fourth);
        machine.recording(fourth, { id: 'ch-d', state: 'RECORDING', recording: { started_at: iso(fourth.start) } });
        reading = { offsetMs: -7_500, withinMs: 100 };
        machine.stopping(fourth, { id: 'ch-d', state: 'RECORDING' });
        machine.finishing(fourth, { id: 'ch-d', state: 'INACTIVE', recording: { ended_at: iso(fourth.end) } });
        expect(warnings).toHaveLength(2);
        expect(warnings[1]).toMatch(
          /^the service's clock is 6 s behind this host's: .* so the service times them 6 s early/,
        );
        expect(told.filter((t) => t.slot === fourth.key).map((t) => t.clockOffset)).toEqual([
          undefined,
          -6,
          undefined,
          -7.5,
        ]);
      } finally {
        diagnostics_channel.unsubscribe('media-spaces:slot', listen);
      }
    });

    it('a channel that never recorded, still PENDING at the stop, ends missed with its state, never recorded', () => {
      told.length = 0;
      diagnostics_channel.subscribe('media-spaces:slot', listen);
      try {
        const { machine, shown } = lives(true);
        open.push(machine);
        const other = { ...slot, key: 'news:w1:never-recorded' };
        const channel = { id: 'ch-5', state: 'PENDING' };
        machine.starting(other);
        machine.recording(other, channel);
        machine.channelState('ch-5', 'STARTING', { id: 'ch-5', state: 'STARTING' });
        machine.stopping(other, channel);
        machine.finishing(other, { ...channel, state: 'INACTIVE' });
        machine.finished(other, { ...channel, state: 'INACTIVE' });
        const mine = told.filter((t) => t.slot === other.key);
        expect(mine.map((t) => t.to)).toEqual(['starting', 'stopping', 'finishing', 'missed']);
        expect(mine.at(-1)?.why).toBe('the channel never recorded (STARTING at the end)');
        expect(shown.at(-1)?.life.stage).toBe('missed');
      } finally {
        diagnostics_channel.unsubscribe('media-spaces:slot', listen);
      }
    });

    it('an end within 5 s of the scheduled end is no overrun', () => {
      told.length = 0;
      diagnostics_channel.subscribe('media-spaces:slot', listen);
      try {
        const { machine } = lives(true);
        open.push(machine);
        const other = { ...slot, key: 'news:w1:on-time' };
        const channel = { id: 'ch-4', recording: { started_at: iso(other.start), ended_at: iso(other.end + 4000) } };
        machine.starting(other);
        machine.recording(other, channel);
        machine.stopping(other, channel);
        machine.finishing(other, channel);
        machine.finished(other, channel);
        const final = told.filter((t) => t.slot === other.key).at(-1);
        expect(final?.to).toBe('finished');
        expect(final?.overrun).toBeUndefined();
        expect(final?.endedAt).toBe(iso(other.end + 4000));
      } finally {
        diagnostics_channel.unsubscribe('media-spaces:slot', listen);
      }
    });
  });
});
