import { describe, expect, it } from 'vitest';
import { findConflicts, type PlanEntry } from '../../../lib/schedule/conflicts';

const MIN = 60_000;
const entry = (key: string, startMin: number, endMin: number, windowId = 'w'): PlanEntry => ({
  key,
  windowId,
  start: startMin * MIN,
  end: endMin * MIN,
});

describe('findConflicts', () => {
  it('marks the later-starting entry that takes a channel over the limit, naming every entry it overlaps', () => {
    const plan = [entry('a', 0, 60), entry('b', 10, 30), entry('c', 20, 50), entry('d', 40, 70)];
    const conflicts = findConflicts(plan, 2);
    expect(conflicts.map((c) => [c.key, c.concurrent, c.limit, c.with])).toEqual([
      ['c', 3, 2, ['b', 'a', 'd']],
      ['d', 3, 2, ['c', 'a']],
    ]);
  });

  it('breaks ties between equal starts by key, whatever the order given', () => {
    const plan = [entry('z', 0, 10), entry('m', 0, 10), entry('a', 0, 10)];
    expect(findConflicts(plan, 2).map((c) => c.key)).toEqual(['z']);
    expect(findConflicts([...plan].reverse(), 1).map((c) => c.key)).toEqual(['m', 'z']);
  });

  it('does not count an entry that ends as another starts (back-to-back, each with its own padding)', () => {
    expect(findConflicts([entry('a', 0, 30), entry('b', 30, 60), entry('c', 60, 90)], 1)).toEqual([]);
  });

  it('marks nothing without a usable limit, and ignores empty entries', () => {
    const plan = [entry('a', 0, 10), entry('b', 0, 10), entry('c', 5, 5)];
    expect(findConflicts(plan, 0)).toEqual([]);
    expect(findConflicts(plan, Number.NaN)).toEqual([]);
    expect(findConflicts(plan, 1).map((c) => c.key)).toEqual(['b']);
  });

  it('keeps the fields of the entry it marks', () => {
    const [c] = findConflicts([entry('a', 0, 10, 'news'), { ...entry('b', 5, 15, 'sport'), title: 'Match' }], 1);
    expect(c).toEqual({
      key: 'b',
      windowId: 'sport',
      start: 5 * MIN,
      end: 15 * MIN,
      title: 'Match',
      concurrent: 2,
      limit: 1,
      with: ['a'],
    });
  });

  it('sweeps a plan of 10,000 entries, marking exactly those over the limit', () => {
    // every 10 minutes an hour-long entry: 6 run at once
    const plan = Array.from({ length: 10_000 }, (_, i) => entry(`k${String(i).padStart(5, '0')}`, i * 10, i * 10 + 60));
    const conflicts = findConflicts(plan, 4);
    // from the fifth entry on, each starts while 4 (then 5) others run
    expect(conflicts).toHaveLength(10_000 - 4);
    expect(conflicts[0]).toMatchObject({ key: 'k00004', concurrent: 5 });
    expect(conflicts[10]).toMatchObject({ concurrent: 6 });
  });
});
