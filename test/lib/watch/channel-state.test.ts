import { describe, expect, it } from 'vitest';
import { ChannelStatePoller, type ChannelStatePollerOptions } from '../../../lib/watch';
import { ManualClock } from '../../support/manual-clock';

/**
 * ChannelStatePoller on a manual clock, reading from a table of channel
 * states the test moves on by hand (the service side is the simulator's
 * business; the node tests read it over HTTP).
 */

type Change = [id: string, previous: string | undefined, state: string, context: string];

function setup(extra: Partial<ChannelStatePollerOptions<string>> = {}) {
  const clock = new ManualClock(1_000);
  const states = new Map<string, string | Error>();
  const reads: string[] = [];
  const changes: Change[] = [];
  const signals: AbortSignal[] = [];
  let hold: Promise<void> | undefined;
  const poller = new ChannelStatePoller<string>({
    intervalMs: 1_000,
    clock,
    async read(id, signal) {
      reads.push(id);
      signals.push(signal);
      if (hold) await hold;
      const state = states.get(id);
      if (state instanceof Error) throw state;
      return { id, status: state };
    },
    stateOf: (channel) => (typeof channel.status === 'string' ? channel.status : undefined),
    onChange: (id, state, channel, watch) => {
      expect(channel.id).toBe(id);
      changes.push([id, watch.state, state, watch.context]);
    },
    ...extra,
  });
  const holdReads = () => {
    let release = () => {};
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    return () => {
      hold = undefined;
      release();
    };
  };
  return { clock, states, reads, changes, signals, poller, holdReads };
}

const SETTLED: ReadonlySet<string> = new Set(['RECORDING', 'ERROR']);

describe('ChannelStatePoller', () => {
  it('reads every interval with one timer, reports changes only, and stops at a settled state', async () => {
    const { clock, states, reads, changes, poller } = setup();
    states.set('a', 'PENDING');
    states.set('b', 'PENDING');
    expect(poller.watch('a', { context: 'A', state: 'PENDING', settled: SETTLED })).toBe(true);
    poller.watch('b', { context: 'B' });
    expect(clock.pending()).toBe(1);

    await clock.advance(1_000);
    expect(reads).toEqual(['a', 'b']);
    expect(changes).toEqual([['b', undefined, 'PENDING', 'B']]);

    states.set('a', 'ACTIVE');
    await clock.advance(1_000);
    states.set('a', 'RECORDING');
    await clock.advance(1_000);
    expect(changes.slice(1)).toEqual([
      ['a', 'PENDING', 'ACTIVE', 'A'],
      ['a', 'ACTIVE', 'RECORDING', 'A'],
    ]);
    expect(poller.ids()).toEqual(['b']);

    poller.unwatch('b');
    expect(clock.pending()).toBe(0);
    const count = reads.length;
    await clock.advance(5_000);
    expect(reads).toHaveLength(count);
    expect(clock.maxPending).toBe(1);
  });

  it('does not watch a channel that is settled already', () => {
    const { clock, poller } = setup();
    expect(poller.watch('a', { context: 'A', state: 'ERROR', settled: SETTLED })).toBe(false);
    expect(poller.ids()).toEqual([]);
    expect(clock.pending()).toBe(0);
  });

  it('gives up on a channel after its time limit, telling onLimit the last state', async () => {
    const limited: [string, string | undefined][] = [];
    const { clock, states, reads, poller } = setup({ onLimit: (w) => limited.push([w.id, w.state]) });
    states.set('a', 'PENDING');
    poller.watch('a', { context: 'A', settled: SETTLED, limitMs: 2_500 });
    await clock.advance(2_000);
    expect(limited).toEqual([]);
    await clock.advance(1_000);
    expect(limited).toEqual([['a', 'PENDING']]);
    expect(reads).toEqual(['a', 'a', 'a']);
    await clock.advance(3_000);
    expect(reads).toHaveLength(3);
  });

  it('keeps the last state on a failed read unless onError says stop', async () => {
    const errors: string[] = [];
    const { clock, states, changes, poller } = setup({
      onError: (error, watch) => {
        errors.push(`${watch.id}: ${(error as Error).message}`);
        return watch.id === 'stop';
      },
    });
    states.set('keep', 'ACTIVE');
    states.set('stop', 'ACTIVE');
    poller.watch('keep', { context: 'K' });
    poller.watch('stop', { context: 'S' });
    await clock.advance(1_000);
    states.set('keep', new Error('502'));
    states.set('stop', new Error('404'));
    await clock.advance(1_000);
    expect(errors).toEqual(['keep: 502', 'stop: 404']);
    expect(poller.ids()).toEqual(['keep']);

    states.set('keep', 'ACTIVE');
    await clock.advance(1_000);
    states.set('keep', 'RECORDING');
    await clock.advance(1_000);
    // ACTIVE survived the failed read: no second report of it
    expect(changes.map(([id, , state]) => `${id} ${state}`)).toEqual(['keep ACTIVE', 'stop ACTIVE', 'keep RECORDING']);
    expect(errors).toHaveLength(2);
  });

  it('close aborts the round in flight and drops what it would have reported', async () => {
    const errors: unknown[] = [];
    const { clock, states, changes, signals, poller, holdReads } = setup({
      onError: (e) => {
        errors.push(e);
        return true;
      },
    });
    states.set('a', 'ACTIVE');
    poller.watch('a', { context: 'A' });
    const release = holdReads();
    await clock.advance(1_000);
    expect(signals).toHaveLength(1);
    poller.close();
    expect(signals[0].aborted).toBe(true);
    release();
    await clock.advance(5_000);
    expect(changes).toEqual([]);
    expect(errors).toEqual([]);
    expect(poller.watch('a', { context: 'A' })).toBe(false);
    expect(clock.pending()).toBe(0);
  });

  it('a channel watched anew while its read is in flight ignores the old read and keeps one timer', async () => {
    const { clock, states, changes, poller, holdReads } = setup();
    states.set('a', 'ACTIVE');
    poller.watch('a', { context: 'old' });
    const release = holdReads();
    await clock.advance(1_000);
    poller.watch('a', { context: 'new', state: 'PENDING' });
    expect(clock.pending()).toBe(0);
    release();
    await clock.advance(0);
    expect(changes).toEqual([]);
    await clock.advance(1_000);
    expect(changes).toEqual([['a', 'PENDING', 'ACTIVE', 'new']]);
    expect(clock.maxPending).toBe(1);
  });

  it('reads many channels in one round without a listener warning on the round signal', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const { clock, states, reads, signals, poller, holdReads } = setup();
      const ids = Array.from({ length: 24 }, (_, i) => `ch-${i}`);
      for (const id of ids) {
        states.set(id, 'ACTIVE');
        poller.watch(id, { context: id });
      }
      const release = holdReads();
      await clock.advance(1_000);
      // each read listens to the signal while in flight, as the transport does
      for (const signal of signals) signal.addEventListener('abort', () => undefined, { once: true });
      expect(reads).toHaveLength(ids.length);
      release();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
