import { describe, expect, it } from 'vitest';
import type { PlannedOccurrence } from '../../../lib/schedule/plan';
import {
  DEFAULT_RERECORD,
  decideRerecord,
  type FailedSlot,
  factsOf,
  failedSlotOf,
  type RerecordBooking,
  sameProgramme,
} from '../../../lib/schedule/rerecord';
import type { SlotTransition } from '../../../lib/schedule/slot-events';

const H = 3600_000;
const T0 = Date.UTC(2026, 10, 30, 18);
const airing = (
  id: string,
  start: number,
  p: { title?: string; episode?: string; subtitle?: string; description?: string },
): PlannedOccurrence => ({ id, start, end: start + H, programme: { ...p, start, end: start + H } });
const failed = (over: Partial<FailedSlot> = {}): FailedSlot => ({
  key: 's:w:one/1.2.',
  windowId: 'w',
  occurrence: 'one/1.2.',
  outcome: 'missed',
  start: T0,
  end: T0 + H,
  lost: 1,
  ...over,
});
const first = airing('one/1.2.', T0, { title: 'Serial', episode: 'S02E03' });
const facts = factsOf(first, 'xmltv');

describe('the same-programme rule', () => {
  it('a guide: the same title and episode-num; else title and sub-title; else title and description', () => {
    expect(
      sameProgramme({ title: 'Serial', episode: 'S02E03' }, { title: ' serial ', episode: 's02e03' }, 'xmltv'),
    ).toBe(true);
    expect(sameProgramme({ title: 'Serial', episode: 'S02E03' }, { title: 'Serial', episode: 'S02E04' }, 'xmltv')).toBe(
      false,
    );
    // another series' episode of the same number is not the same programme
    expect(sameProgramme({ title: 'Serial', episode: 'S02E03' }, { title: 'Other', episode: 'S02E03' }, 'xmltv')).toBe(
      false,
    );
    expect(
      sameProgramme({ title: 'Serial', subtitle: 'The Pilot' }, { title: 'Serial', subtitle: 'the  pilot' }, 'xmltv'),
    ).toBe(true);
    expect(
      sameProgramme(
        { title: 'Serial', description: 'A storm.' },
        { title: 'Serial', description: 'A storm.' },
        'xmltv',
      ),
    ).toBe(true);
    // an episode-num on one side only: the sub-title decides
    expect(
      sameProgramme(
        { title: 'Serial', episode: 'S02E03', subtitle: 'Pilot' },
        { title: 'Serial', subtitle: 'Pilot' },
        'xmltv',
      ),
    ).toBe(true);
    // the title alone is not enough for a guide
    expect(sameProgramme({ title: 'Serial' }, { title: 'Serial' }, 'xmltv')).toBe(false);
    expect(sameProgramme({ episode: 'S02E03' }, { episode: 'S02E03' }, 'xmltv')).toBe(false);
  });

  it('a calendar: the same UID (another instance of a recurring event), or the same title', () => {
    const weekly = (start: number) => ({
      id: `weekly@test/${new Date(start).toISOString().slice(0, 19)}Z`,
      programme: { title: 'Planning', start, end: start },
    });
    expect(factsOf(weekly(T0), 'ical').uid).toBe('weekly@test');
    expect(sameProgramme(factsOf(weekly(T0), 'ical'), factsOf(weekly(T0 + 24 * H), 'ical'), 'ical')).toBe(true);
    expect(sameProgramme({ uid: 'a', title: 'Review' }, { uid: 'b', title: 'review' }, 'ical')).toBe(true);
    expect(sameProgramme({ uid: 'a', title: 'Review' }, { uid: 'b', title: 'Planning' }, 'ical')).toBe(false);
  });
});

describe('deciding a re-record', () => {
  const airings = [
    first,
    airing('one/1.2./later', T0 + 48 * H, { title: 'Serial', episode: 'S02E03' }),
    airing('one/1.3.', T0 + 24 * H, { title: 'Serial', episode: 'S02E04' }),
    airing('one/1.2./much-later', T0 + 10 * 24 * H, { title: 'Serial', episode: 'S02E03' }),
  ];
  const decide = (over: Partial<Parameters<typeof decideRerecord>[0]> = {}) =>
    decideRerecord({
      failed: failed(),
      facts,
      rule: DEFAULT_RERECORD,
      kind: 'xmltv',
      airings,
      bookings: [],
      now: T0 + H,
      ...over,
    });

  it('books the next airing of the same episode within `within`', () => {
    expect(decide()).toEqual({ book: airings[1] });
    // beyond `within`: nothing
    expect(decide({ rule: { within: 24 * 3600, minLost: 0.1 } })).toEqual({
      none: 'no later airing of it is listed within rerecord.within',
    });
  });

  it('a partial recording: only when more than min_lost of it was lost', () => {
    expect(decide({ failed: failed({ outcome: 'partial', lost: 0.1 }) })).toEqual({
      none: '10% of it was lost, not more than rerecord.min_lost (10%)',
    });
    expect(decide({ failed: failed({ outcome: 'partial', lost: 0.4 }) })).toEqual({ book: airings[1] });
  });

  it('at most once per `within`: a failed re-record ends the chain, and a programme booked once is not booked again', () => {
    expect(decide({ failed: failed({ rerecordOf: 's:w:zero' }) })).toMatchObject({
      none: expect.stringMatching(/once already/),
    });
    const booking: RerecordBooking = {
      slot: 's:w:one/1.2./later',
      windowId: 'w',
      occurrence: 'one/1.2./later',
      of: 's:w:one/1.2./earliest',
      start: T0 + 48 * H,
      end: T0 + 49 * H,
      failedStart: T0 - 24 * H,
      programme: facts,
    };
    expect(decide({ bookings: [booking] })).toMatchObject({ none: expect.stringMatching(/once already/) });
    // the booking of another programme does not count
    expect(decide({ bookings: [{ ...booking, programme: { title: 'Other', episode: 'S01E01' } }] })).toEqual({
      book: airings[1],
    });
  });

  it('never an airing that has begun, and never one without a title to find it by', () => {
    expect(decide({ now: T0 + 48 * H + 1 })).toMatchObject({ none: expect.stringMatching(/no later airing/) });
    expect(decide({ facts: { episode: 'S02E03' } })).toEqual({ none: 'it has no title to find it again by' });
  });
});

describe('a failed slot from its final transition', () => {
  const t = (over: Partial<SlotTransition>): SlotTransition => ({
    slot: 's:w:o',
    schedule: { id: 'n', name: '' },
    window: { id: 'w', zone: 'UTC' },
    occurrence: { id: 'o', start: '2026-11-30T18:00:00Z', end: '2026-11-30T19:00:00Z' },
    scheduled: { start: '2026-11-30T18:00:00Z', end: '2026-11-30T19:00:00Z' },
    from: 'stopping',
    to: 'partial',
    at: '2026-11-30T19:00:05Z',
    ...over,
  });

  it('partial: the share of the padded window its gaps took; missed: all of it; anything else: none', () => {
    const partial = failedSlotOf(
      t({
        gaps: [
          { from: '2026-11-30T18:10:00Z', to: '2026-11-30T18:25:00Z', why: 'ERROR' },
          { from: '2026-11-30T18:55:00Z', to: '2026-11-30T19:10:00Z', why: 'ERROR' },
        ],
      }),
    );
    expect(partial).toMatchObject({ outcome: 'partial', occurrence: 'o', windowId: 'w' });
    expect(partial?.lost).toBeCloseTo(20 / 60);
    expect(failedSlotOf(t({ from: 'starting', to: 'missed', why: 'HTTP 503' }))).toMatchObject({
      outcome: 'missed',
      lost: 1,
      why: 'HTTP 503',
    });
    expect(failedSlotOf(t({ to: 'finished' }))).toBeUndefined();
    expect(failedSlotOf(t({ from: 'missed', to: 'missed' }))).toBeUndefined();
    expect(failedSlotOf(t({ to: 'missed', rerecordOf: 's:w:earlier' }))?.rerecordOf).toBe('s:w:earlier');
  });
});
