import { describe, expect, it } from 'vitest';
import { DurationError } from '../../../../lib/schedule/duration';
import {
  type Occurrence,
  paddingMs,
  parsePadding,
  planned,
  revisionOf,
} from '../../../../lib/schedule/sources/occurrence';

const at = (iso: string) => new Date(iso);

describe('padding', () => {
  it('reads each side as the schedule reads durations, zero or absent as none', () => {
    expect(parsePadding({ before: '2m', after: '5m' })).toEqual({ before: 120_000, after: 300_000 });
    expect(parsePadding({ before: 'PT1M', after: 90 })).toEqual({ before: 60_000, after: 90_000 });
    expect(parsePadding({ after: '10s' })).toEqual({ before: 0, after: 10_000 });
    expect(parsePadding(undefined)).toEqual({ before: 0, after: 0 });
    for (const none of [0, '0', '0s', ' 0m ', null]) expect(paddingMs(none)).toBe(0);
    expect(() => paddingMs('soon')).toThrow(DurationError);
    expect(() => paddingMs(-5)).toThrow('must be longer than zero');
  });

  it('pads both ends of back-to-back occurrences in full: nothing is cut between them', () => {
    const o = (id: string, start: string, end: string): Occurrence => ({
      id,
      windowId: 'w',
      start: at(start),
      end: at(end),
      revision: revisionOf(at(start), at(end), id),
    });
    const first = o('a', '2026-10-03T17:00:00Z', '2026-10-03T18:00:00Z');
    const second = o('b', '2026-10-03T18:00:00Z', '2026-10-03T19:00:00Z');
    const p = { before: 60_000, after: 600_000 };
    const ms = (iso: string) => Date.parse(iso);
    expect(planned(first, p)).toMatchObject({ start: ms('2026-10-03T16:59:00Z'), end: ms('2026-10-03T18:10:00Z') });
    expect(planned(second, p)).toMatchObject({ start: ms('2026-10-03T17:59:00Z'), end: ms('2026-10-03T19:10:00Z') });
    // the programme keeps its unpadded times beside them, and so does the occurrence
    expect(planned(first, p).programme).toMatchObject({
      start: ms('2026-10-03T17:00:00Z'),
      end: ms('2026-10-03T18:00:00Z'),
    });
    expect(first.end).toEqual(at('2026-10-03T18:00:00Z'));
  });
});

describe('revisionOf', () => {
  it('is stable for the same start, end and title and changes with any of them', () => {
    const s = at('2026-06-01T09:00:00Z');
    const e = at('2026-06-01T10:00:00Z');
    const r = revisionOf(s, e, 'News');
    expect(r).toMatch(/^[0-9a-z]{14}$/);
    expect(revisionOf(new Date(s), new Date(e), 'News')).toBe(r);
    expect(
      new Set([
        r,
        revisionOf(at('2026-06-01T09:01:00Z'), e, 'News'),
        revisionOf(s, at('2026-06-01T10:01:00Z'), 'News'),
        revisionOf(s, e, 'News!'),
        revisionOf(s, e, undefined),
      ]).size,
    ).toBe(5);
  });
});
