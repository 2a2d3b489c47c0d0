import { describe, expect, it } from 'vitest';
import type { ScheduleView, SlotView } from '../../../../nodes/sidebar/activity-types';
import { slotLabel, slotTimes, slotWhen } from '../../../../nodes/sidebar/editor/format';
import { question } from '../../../../nodes/sidebar/editor/questions';
import { describeSlot, listOf } from '../../../../nodes/sidebar/editor/slot-text';

/** 2026-06-15 17:00 UTC = 18:00 BST in London. */
const START = Date.UTC(2026, 5, 15, 17, 0, 0);
const slot = (extra: Partial<SlotView>): SlotView => ({
  windowId: 'news',
  start: START,
  end: START + 3_600_000,
  phase: 'active',
  ...extra,
});
const said = (s: SlotView) => {
  const text = describeSlot(s, 'Europe/London');
  return { ...text, list: listOf(s, text) };
};

describe('sidebar: what a slot says at each stage', () => {
  it('starting, with the attempt and the last failure', () => {
    expect(said(slot({ life: { stage: 'starting' } }))).toEqual({
      stage: 'starting',
      headline: 'starting',
      alarm: false,
      list: 'recording',
    });
    expect(said(slot({ life: { stage: 'starting', attempt: 4, note: '503 Service Unavailable' } })).headline).toBe(
      'starting, attempt 4: 503 Service Unavailable',
    );
  });

  it('recording, late when a second or more late, with the channel as the service says it', () => {
    expect(said(slot({ life: { stage: 'recording', lateMs: 999 } })).headline).toBe('recording');
    expect(
      said(slot({ life: { stage: 'recording', lateMs: 31_200 }, channel: { state: 'RECORDING', id: 'c1' } })),
    ).toMatchObject({ stage: 'recording', headline: 'recording, started 31 s late · channel RECORDING' });
    expect(said(slot({ life: { stage: 'stopping' } }))).toMatchObject({ headline: 'stopping', list: 'recording' });
  });

  it('finished with the follow-up time in the window zone, missed as an alarm, skipped with its note', () => {
    const followupAt = START + 3_600_000 + 5_000;
    expect(
      said(slot({ phase: 'past', life: { stage: 'finished', followupAt, note: 'outputs not final after 2 min' } })),
    ).toEqual({
      stage: 'finished',
      headline: 'finished, follow-up submitted at 19:00:05 · outputs not final after 2 min',
      alarm: false,
      list: 'windows',
    });
    expect(said(slot({ phase: 'past', life: { stage: 'missed', note: 'every start refused: 503' } }))).toEqual({
      stage: 'missed',
      headline: 'missed: every start refused: 503',
      alarm: true,
      list: 'failures',
    });
    expect(said(slot({ phase: 'past', life: { stage: 'skipped', note: 'paused' } }))).toMatchObject({
      headline: 'skipped: paused',
      alarm: false,
      list: 'windows',
    });
  });

  it('planned slots are not listed: scheduled, or due when the start passed unreported', () => {
    expect(said(slot({ phase: 'upcoming' }))).toMatchObject({ stage: 'scheduled', list: undefined });
    expect(said(slot({ phase: 'due' }))).toMatchObject({
      stage: 'due',
      headline: 'due, no start reported',
      list: undefined,
    });
  });

  it('reads reports without a life by their outcome, as before', () => {
    expect(said(slot({ channel: { state: 'PENDING' } }))).toMatchObject({ stage: 'PENDING', list: 'recording' });
    expect(said(slot({}))).toMatchObject({ stage: 'in window', headline: 'in window' });
    expect(said(slot({ phase: 'past', outcome: { channel: 'failed', reason: 'Refused.' } }))).toMatchObject({
      headline: 'channel failed: Refused.',
      alarm: true,
      list: 'failures',
    });
    expect(
      said(slot({ phase: 'past', outcome: { channel: 'created', job: { id: 'j', state: 'succeeded' } } })),
    ).toMatchObject({ headline: 'channel created · job succeeded', alarm: false, list: 'windows' });
  });
});

describe('sidebar: slot times in the window zone', () => {
  it('names the zone once, and shows seconds where minutes would hide them', () => {
    expect(slotLabel('Evening news', START, START + 3_600_000, 'Europe/London')).toBe(
      'Evening news 18:00–19:00 BST (Europe/London)',
    );
    expect(slotTimes(Date.UTC(2026, 5, 15, 20, 23), Date.UTC(2026, 5, 15, 20, 23, 40), 'UTC')).toBe(
      '20:23:00–20:23:40 UTC',
    );
    // another day than today (in the zone) says which
    expect(slotWhen(START, START + 3_600_000, 'Europe/London', START - 86_400_000)).toBe(
      'Mon 15 Jun 18:00–19:00 BST (Europe/London)',
    );
    expect(slotWhen(START, START + 3_600_000, 'Europe/London', START - 3_600_000)).toBe(
      '18:00–19:00 BST (Europe/London)',
    );
  });
});

describe('sidebar: the questions before acting', () => {
  const schedule: ScheduleView = {
    nodeId: 's',
    name: 'News schedule',
    paused: false,
    actions: ['pause', 'resume', 'start', 'skip'],
    windows: [{ id: 'news', name: 'Evening news', timezone: 'Europe/London', duration: 3600, enabled: true }],
    slots: [slot({ phase: 'due', start: START - 86_400_000 }), slot({ phase: 'upcoming' })],
  };
  const now = START - 3_600_000;

  it('name the window and its start for "Start now" and "Skip next"', () => {
    expect(question(schedule, 'skip', now)).toBe(
      'Skip the next window of "News schedule": "Evening news", 18:00–19:00 BST (Europe/London)?',
    );
    expect(question(schedule, 'start', now)).toBe(
      'Start "Evening news" of "News schedule" now? Its next planned start is 18:00–19:00 BST (Europe/London).',
    );
    expect(question(schedule, 'pause', now)).toBe(
      'Pause the schedule "News schedule"? No window starts until it is resumed.',
    );
    expect(question({ ...schedule, slots: [] }, 'skip', now)).toBe('Skip the next window of "News schedule"?');
  });
});
