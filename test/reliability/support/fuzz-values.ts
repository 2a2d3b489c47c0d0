import type { SeededRandom } from './seeded-random';

/**
 * Values for fuzzing message fields: random JSON, wrong types, edge numbers,
 * odd and huge strings, deep nesting, prototype-pollution keys, Buffers and
 * Dates. Every value comes from the seeded generator, so a seed reproduces
 * a run; `describeValue` gives a short label for reports.
 */

export const ONE_MB = 1024 * 1024;

const ASCII = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
const UNICODE = [
  'é',
  'ß',
  'Ω',
  'ж',
  '中',
  '文',
  'ع',
  'ה',
  '😀',
  '🎬',
  '👩‍💻',
  '\u0301', // combining accent
  '\u200b', // zero width space
  '\u200e', // left-to-right mark
  '\u202e', // right-to-left override
  '\ufeff', // byte order mark
  '\u0000',
  '\u0007',
  '\n',
  '\r',
  '\t',
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\u2028',
  '%',
  '/',
  '\\',
  '..',
  '?',
  '#',
  '{{',
  '}}',
  '"',
  "'",
  '`',
  '<',
  '>',
  '&',
];

export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

const SPECIAL_STRINGS = [
  '',
  ' ',
  '   ',
  'null',
  'undefined',
  'NaN',
  'true',
  '0',
  '-1',
  '10',
  ' 5 ',
  '1e2',
  '0x10',
  '1.5',
  '99999999999999999999',
  'active',
  'idle',
  'archived',
  'deleted',
  'ACTIVE',
  '../..',
  '..',
  '.',
  'a/b',
  '%2e%2e',
  '%2F',
  '%',
  '?x=1#y',
  'http://evil.example/',
  '{"a":1}',
  '[1,2]',
  '{{window.id}}',
  '{{constructor.constructor}}',
  '__proto__',
  'constructor',
  'trigger',
  'pause',
  'resume',
  'reload',
  'list',
  'TRIGGER ',
  '00000000-0000-0000-0000-000000000000',
  'aaaaaaaa-0000-4000-8000-000000000001',
  'AAAAAAAA-0000-4000-8000-000000000001',
  'aaaaaaaa-0000-4000-8000-0000000000ff',
  'aaaaaaaa-0000-4000-8000-00000000000',
  '<script>alert(1)</script>',
  "'; DROP TABLE jobs; --",
  '\u0000',
  '😀'.repeat(10),
];

const SPECIAL_NUMBERS = [
  0,
  -0,
  1,
  -1,
  2,
  5,
  50,
  100,
  101,
  255,
  256,
  2.5,
  -23.3,
  1e21,
  -1e21,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  Number.MIN_SAFE_INTEGER,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1717171717171,
];

export interface ValueOptions {
  /** Chance of a 1 MB string where a string is drawn (default 1%). */
  hugeChance?: number;
  /** Extra strings that make sense for the field (valid ids, names), drawn now and then. */
  pool?: readonly unknown[];
}

/** A string of one of several flavours. */
export function fuzzString(r: SeededRandom, options: ValueOptions = {}): string {
  const roll = r.next();
  if (roll < (options.hugeChance ?? 0.01)) return hugeString(r);
  if (roll < 0.35) return r.pick(SPECIAL_STRINGS);
  if (roll < 0.55) return r.text(r.int(1, 40), ASCII);
  if (roll < 0.75) return r.text(r.int(1, 20), UNICODE);
  if (roll < 0.85) return r.text(r.int(200, 5000), [...ASCII, ...UNICODE]);
  return `${r.text(r.int(1, 10), ASCII)}${r.pick(UNICODE)}${r.text(r.int(0, 10), ASCII)}`;
}

/** 1 MB of one repeated character or of a pattern, with an odd character somewhere. */
export function hugeString(r: SeededRandom): string {
  const unit = r.pick(['x', 'é', '😀', 'a/', '{', ' ', '0']);
  const base = unit.repeat(Math.ceil(ONE_MB / unit.length)).slice(0, ONE_MB);
  const at = r.int(0, base.length - 1);
  return `${base.slice(0, at)}${r.pick(UNICODE)}${base.slice(at + 1)}`;
}

export function fuzzNumber(r: SeededRandom): number {
  const roll = r.next();
  if (roll < 0.6) return r.pick(SPECIAL_NUMBERS);
  if (roll < 0.8) return r.int(-1_000_000, 1_000_000);
  return (r.next() - 0.5) * 10 ** r.int(-5, 25);
}

/** An object nested `depth` levels (object or array chain), optionally with a leaf value. */
export function deepValue(r: SeededRandom, depth: number): unknown {
  const arrays = r.chance(0.5);
  let v: unknown = r.chance(0.5) ? 'leaf' : null;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
}

/** An object whose own keys include a prototype-pollution key (as JSON.parse makes them). */
export function pollutingObject(r: SeededRandom): Record<string, unknown> {
  const key = r.pick(POLLUTION_KEYS);
  const inner = r.pick([
    '{"polluted": "yes", "isAdmin": true}',
    '{"prototype": {"polluted": "yes"}}',
    '"text"',
    '5',
    'null',
    '[1]',
  ]);
  const text = `{"${key}": ${inner}, "name": "fuzz-${r.int(0, 1e6)}", "${r.pick(['toString', 'valueOf', 'hasOwnProperty', 'x'])}": 1}`;
  return JSON.parse(text) as Record<string, unknown>;
}

/** Random JSON: scalars, arrays and objects up to `depth` levels. */
export function randomJson(r: SeededRandom, depth = 3, options: ValueOptions = {}): unknown {
  const roll = r.next();
  if (depth <= 0 || roll < 0.5) {
    const s = r.next();
    if (s < 0.15) return null;
    if (s < 0.3) return r.chance(0.5);
    if (s < 0.6) return fuzzNumber(r);
    return fuzzString(r, { ...options, hugeChance: 0 });
  }
  if (roll < 0.7) return Array.from({ length: r.int(0, 4) }, () => randomJson(r, depth - 1, options));
  const out: Record<string, unknown> = {};
  for (let i = r.int(0, 4); i > 0; i--) {
    const key = r.chance(0.8)
      ? r.pick(['a', 'id', 'name', 'value', 'command', 'variables', 'x-y', '', ' ', '中'])
      : fuzzString(r);
    out[key.slice(0, 50)] = randomJson(r, depth - 1, options);
  }
  return out;
}

/** Any value a flow could put on a message property. */
export function fuzzValue(r: SeededRandom, options: ValueOptions = {}): unknown {
  const roll = r.next();
  if (options.pool && options.pool.length > 0 && roll < 0.15) return r.pick(options.pool);
  if (roll < 0.2) return fuzzString(r, options);
  if (roll < 0.32) return fuzzNumber(r);
  if (roll < 0.37) return r.chance(0.5);
  if (roll < 0.42) return null;
  if (roll < 0.62) return randomJson(r, 3, options);
  if (roll < 0.7) return pollutingObject(r);
  if (roll < 0.74) return deepValue(r, r.pick([50, 500, 2_000]));
  if (roll < 0.78) return Array.from({ length: r.int(0, 3) }, () => fuzzString(r, { hugeChance: 0 }));
  if (roll < 0.81) return Buffer.from(fuzzString(r, { hugeChance: 0 }));
  if (roll < 0.83) return new Date(r.chance(0.5) ? Number.NaN : r.int(0, 2_000_000_000) * 1000);
  if (roll < 0.85) return Array.from({ length: r.int(1000, 5000) }, (_, i) => i);
  return fuzzString(r, options);
}

/** A short label of a value, for reports and assertion messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length > 40 ? `string(${value.length})` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Buffer.isBuffer(value)) return `Buffer(${value.length})`;
  if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`;
  if (Array.isArray(value)) return `array(${value.length})`;
  try {
    const text = JSON.stringify(value);
    return text.length > 60 ? `object(${text.length} chars)` : text;
  } catch {
    return 'object(unserialisable)';
  }
}
