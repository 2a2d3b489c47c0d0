import { describe, expect, it } from 'vitest';
import { sameChannel } from '../../../lib/channel-ref';
import { AfterSends } from '../../../nodes/schedule/after-sends';

const checkPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A schedule's badge and sidebar work, done once the starts of the turn are on their way. */
describe('AfterSends', () => {
  it('waits past the next check phase (the deliveries), then does the work in order, each settle once and last', async () => {
    const done: string[] = [];
    const after = new AfterSends(() => undefined);
    const badge = () => done.push('badge');
    after.add(() => done.push('a starting'));
    after.settle(badge);
    after.add(() => done.push('b starting'));
    after.settle(badge);
    expect(done).toEqual([]);
    await checkPhase();
    expect(done).toEqual([]);
    await checkPhase();
    expect(done).toEqual(['a starting', 'b starting', 'badge']);
  });

  it('does now what must not be overtaken, after what was added before it; close does what is left', () => {
    const done: string[] = [];
    const after = new AfterSends(() => undefined);
    after.add(() => done.push('starting'));
    after.now(() => done.push('finished'));
    after.add(() => done.push('late'));
    after.close();
    after.add(() => done.push('after close'));
    expect(done).toEqual(['starting', 'finished', 'late']);
  });

  it('a failing piece of work is reported and the rest still done', async () => {
    const errors: unknown[] = [];
    const done: string[] = [];
    const after = new AfterSends((err) => errors.push(err));
    after.add(() => {
      throw new Error('sidebar gone');
    });
    after.add(() => done.push('badge'));
    await checkPhase();
    await checkPhase();
    expect(done).toEqual(['badge']);
    expect(String(errors[0])).toContain('sidebar gone');
  });
});

describe('sameChannel', () => {
  it('is the same object, or the same JSON with the same id', () => {
    const ch = { id: 'c1', state: 'CREATING' };
    expect(sameChannel(ch, ch)).toBe(true);
    expect(sameChannel(ch, { id: 'c1', state: 'CREATING' })).toBe(true);
    expect(sameChannel(ch, { id: 'c1', state: 'RECORDING' })).toBe(false);
    expect(sameChannel(ch, { id: 'c2', state: 'CREATING' })).toBe(false);
    expect(sameChannel(undefined, ch)).toBe(false);
    expect(sameChannel({ name: 'no id' }, { name: 'no id' })).toBe(false);
  });
});
