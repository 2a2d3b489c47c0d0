import { describe, expect, it } from 'vitest';
import { canonicalJson, IdempotencyStore } from '../../../lib/simulator/idempotency';

const response = (body: string) => ({ status: 200, body, headers: {} });

describe('IdempotencyStore', () => {
  it('drops the oldest keys past its cap, and only those', () => {
    const store = new IdempotencyStore(3);
    for (const k of ['a', 'b', 'c', 'd']) {
      expect(store.begin(k, 'f')).toEqual({ kind: 'new' });
      store.complete(k, response(k));
    }
    expect(store.size).toBe(3);
    expect(store.begin('a', 'f')).toEqual({ kind: 'new' });
    expect(store.begin('c', 'f')).toEqual({ kind: 'replay', response: response('c') });
    expect(store.begin('b', 'f')).toEqual({ kind: 'new' });
  });

  it('a released key that comes back is evicted at its new place, not its old one', () => {
    const store = new IdempotencyStore(2);
    store.begin('a', 'f');
    store.release('a');
    store.begin('b', 'f');
    store.begin('a', 'f');
    store.complete('a', response('a'));
    store.begin('c', 'f');
    expect(store.size).toBe(2);
    expect(store.begin('a', 'f')).toEqual({ kind: 'replay', response: response('a') });
    expect(store.begin('b', 'f')).toEqual({ kind: 'new' });
  });

  it('stays bounded when every key is released', () => {
    const store = new IdempotencyStore(10);
    for (let i = 0; i < 1000; i++) {
      store.begin(`k${i}`, 'f');
      store.release(`k${i}`);
    }
    expect(store.size).toBe(0);
    expect((store as unknown as { order: unknown[] }).order.length).toBeLessThanOrEqual(21);
  });

  it('asks `equivalent` only when the fingerprint text differs', () => {
    const store = new IdempotencyStore();
    const asked: string[] = [];
    const sameLetters = (a: string, b: string) => {
      asked.push(`${a}/${b}`);
      return [...a].sort().join('') === [...b].sort().join('');
    };
    store.begin('k', 'ab', sameLetters);
    expect(store.begin('k', 'ab', sameLetters).kind).toBe('in_flight');
    expect(asked).toEqual([]);
    expect(store.begin('k', 'ba', sameLetters).kind).toBe('in_flight');
    expect(store.begin('k', 'bc', sameLetters).kind).toBe('mismatch');
    expect(asked).toEqual(['ab/ba', 'ab/bc']);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps arrays in order', () => {
    expect(canonicalJson({ b: [2, { d: 1, c: null }], a: 'x' })).toBe('{"a":"x","b":[2,{"c":null,"d":1}]}');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
  });

  it('writes what JSON.stringify writes for sorted input, whatever the nesting, without recursion', () => {
    const flat = { a: [1, 'x', null, true, { b: [], c: {} }], d: -1.5e-7, e: 'quote " and \\ slash' };
    expect(canonicalJson(flat)).toBe(JSON.stringify(flat));
    let deep: unknown = 0;
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? [deep] : { k: deep };
    // deeper than JSON.stringify itself goes: 100,000 of {"k":…} and 100,000 of […] around a 0
    const text = canonicalJson(deep);
    expect(text.length).toBe(100_000 * 6 + 100_000 * 2 + 1);
    expect(text.slice(0, 8)).toBe('[{"k":[{');
    expect(text.indexOf('0')).toBe(600_000);
    expect(text.slice(599_994, 600_003)).toBe('[{"k":0}]');
  });
});
