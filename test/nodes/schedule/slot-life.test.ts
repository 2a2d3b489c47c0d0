import { afterEach, describe, expect, it } from 'vitest';
import type { Slot } from '../../../lib/schedule';
import { type Channel, SlotLives } from '../../../nodes/schedule/slot-life';
import type { SlotLife } from '../../../nodes/sidebar/activity-types';

const NOW = Date.now();
const slot: Slot = {
  key: 'news:w1:2026-11-26T18:00:00Z',
  windowId: 'w1',
  start: NOW - 5000,
  end: NOW + 60_000,
  reason: 'scheduled',
};

/** The lives of one schedule, with what they show the sidebar. */
function lives() {
  const shown: { key: string; life: SlotLife; channel?: Channel }[] = [];
  const machine = new SlotLives({
    show: (s, life, channel) => shown.push({ key: s.key, life, ...(channel ? { channel: channel as Channel } : {}) }),
    changed: () => undefined,
    channelCreated: () => undefined,
    channelRequested: () => undefined,
    startAttempted: () => undefined,
    startFailed: () => undefined,
    startFailing: () => undefined,
    interrupted: () => undefined,
    identity: (s) => ({
      schedule: { id: 'n1', name: '' },
      window: { id: s.windowId, zone: 'UTC' },
      occurrence: { id: 'o', start: '', end: '' },
      scheduled: { start: '', end: '' },
    }),
    alarmAfterMs: () => 30_000,
  });
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
    machine.restore(slot, undefined, [], [], { message: '503 Service Unavailable', attempts: 15 });
    expect(shown).toEqual([
      { key: slot.key, life: { stage: 'starting', attempt: 15, note: 'gave up: 503 Service Unavailable' } },
    ]);
    expect(machine.heardOf(slot.key)).toBe(true);

    machine.restore({ ...slot, key: 'other' }, { id: 'ch-7', state: 'RECORDING' }, [], []);
    expect(shown.at(-1)).toEqual({
      key: 'other',
      life: { stage: 'recording' },
      channel: { id: 'ch-7', state: 'RECORDING' },
    });
  });

  it("a channel's state read from the service is shown with the slot, and only for the channel the slot has now", () => {
    const { machine, shown } = lives();
    open.push(machine);
    machine.restore(slot, { id: 'ch-1', state: 'STARTING' }, [], []);
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
    machine.restore(slot, { id: 'ch-1', state: 'RECORDING' }, [], []);
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
});
