/**
 * A node's fields declared once, as data: for each setting its default, its
 * rule, its label key and the msg property that overrides it. Browser-safe
 * (no zod, no Node-RED): the editor bundles it for its `defaults` and
 * validators, and the runtime derives its zod schema and input map from the
 * same table (nodes/shared/settings.ts), so the dialog and the runtime cannot
 * drift apart.
 */

import { IDEMPOTENCY_KEY_RULE, isIdempotencyKey } from '../../lib/rules';

/** The outcome of a rule: the value to use, or the rule the value breaks ("must be …"). */
type Read<T> = { ok: true; value: T } | { ok: false; rule: string };

export interface Rule<T> {
  /** Reads a stored setting (or a message property, where readGiven is not set). */
  read(value: unknown): Read<T>;
  /** Reads a value a message gives, where that differs: a message's '' or null may be a mistake, not a blank box. */
  readGiven?(value: unknown): Read<T>;
  /** The rule in words, completing "<field> …". */
  readonly text: string;
}

export type TypedInputType = 'str' | 'num' | 'bool' | 'json' | 'msg' | 'flow' | 'global' | 'env' | 're' | 'date';

export interface Field<T = unknown> {
  /**
   * The editor's default for a new node, also read when a flow saved before
   * the field existed lacks it. Omitted for an input only a message gives.
   */
  value?: string | number | boolean | readonly unknown[];
  /**
   * What a stored node lacking the setting reads as, when that is not `value`:
   * a feature new nodes get on, which flows saved before it existed must not
   * start doing on their own (create channel's "Show state").
   */
  missing?: string | number | boolean;
  rule: Rule<T>;
  /** The key of the dialog's label in the node's catalogue, `<node type>.label.<label>`; the key when omitted. */
  label?: string;
  /** The msg property that overrides the setting. */
  message?: string;
  /** The property of an object msg.payload that gives the input before msg.<message> (a control message's request form). */
  payload?: string;
  /** A typed input: the types the dialog offers; the type chosen is stored in `<key>Type`. */
  types?: readonly TypedInputType[];
  /** The typed input's type for a new node, and when `<key>Type` is empty; the first of `types` when omitted. */
  type?: TypedInputType;
  /** A reference to a config node of this type. */
  node?: 'media-spaces-config' | 'media-spaces-coordination';
  /** The dialog marks it required (a config node to choose, a value without which nothing works). */
  required?: boolean;
  /**
   * A config node reference a node added to the canvas fills with the one config
   * node of that type there is (nodes/shared/editor/config-choice.ts).
   */
  takeOnly?: boolean;
}

export type FieldTable = Record<string, Field>;

/** The value type a field's rule gives. */
export type FieldValue<F> = F extends Field<infer T> ? T : never;

/** The keys of the fields the dialog stores (every field but the message-only inputs). */
export type SettingKey<F extends FieldTable> = {
  [K in keyof F]: F[K] extends { value: string | number | boolean | readonly unknown[] } ? K : never;
}[keyof F] &
  string;

/** The keys of the typed inputs' type fields, `<key>Type`. */
export type TypeKey<F extends FieldTable> = {
  [K in keyof F]: F[K] extends { types: readonly TypedInputType[] } ? `${K & string}Type` : never;
}[keyof F];

/** Checks the table's shape at compile time while keeping each field's exact rule type. */
export const fieldTable = <F extends FieldTable>(fields: F): F => fields;

export const isBlank = (value: unknown): boolean => value === undefined || value === null || value === '';

const ok = <T>(value: T): Read<T> => ({ ok: true, value });
const bad = <T>(rule: string): Read<T> => ({ ok: false, rule });

export const rule = <T>(text: string, read: (value: unknown) => Read<T>): Rule<T> => ({ text, read });

/**
 * A setting left blank (undefined, '' or null) reads as not set; anything else
 * must follow `inner`. A message property is not set when undefined; its ''
 * also reads as not set (an empty query parameter) unless `empty: 'refused'`
 * (a page size or timeout of '' is a mistake, not "use the setting"), its null
 * only with `null: 'unset'` (a next_page_token of null means "no more pages").
 */
export function optional<T>(inner: Rule<T>, options: { null?: 'unset'; empty?: 'refused' } = {}): Rule<T | undefined> {
  const unset = (value: unknown) =>
    value === undefined ||
    (value === '' && options.empty !== 'refused') ||
    (value === null && options.null === 'unset');
  return {
    text: inner.text,
    read: (value) => (isBlank(value) ? ok(undefined) : inner.read(value)),
    readGiven: (value) => (unset(value) ? ok(undefined) : inner.read(value)),
  };
}

/** Any value `inner` refuses reads as `fallback` (a select whose stored value no longer exists). */
export function otherwise<T>(inner: Rule<T>, fallback: T): Rule<T> {
  return rule(inner.text, (value) => {
    const read = inner.read(value);
    return read.ok ? read : ok(fallback);
  });
}

/** Blank reads as `fallback`; anything else must follow `inner`. */
export function orDefault<T>(inner: Rule<T>, fallback: T): Rule<T> {
  return rule(inner.text, (value) => (isBlank(value) ? ok(fallback) : inner.read(value)));
}

/**
 * Text. With `numbers`, a number is taken as its decimal text (an id built by
 * a CSV or an HTTP query may arrive as one).
 */
export function text(options: { trim?: boolean; numbers?: boolean } = {}): Rule<string> {
  return rule('must be text', (value) => {
    const s = options.numbers && typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    if (typeof s !== 'string') return bad('must be text');
    return ok(options.trim ? s.trim() : s);
  });
}

/** Text where blank (or a missing property) reads as ''. */
export const textOrEmpty = (options: { trim?: boolean; numbers?: boolean } = {}): Rule<string> =>
  orDefault(text(options), '');

const WHOLE = /^\s*[+-]?\d{1,15}\s*$/;

/** A whole number in [min, max]; digit strings (the dialog's text boxes, HTTP queries, CSV) are accepted. */
export function whole(min: number, max = Number.MAX_SAFE_INTEGER, words?: string): Rule<number> {
  const says =
    words ??
    (max === Number.MAX_SAFE_INTEGER
      ? min === 0
        ? 'must be a whole number, 0 or more'
        : `must be a whole number of at least ${min}`
      : `must be a whole number from ${min} to ${max}`);
  return rule(says, (value) => {
    const n = typeof value === 'string' && WHOLE.test(value) ? Number(value) : value;
    return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max ? ok(n) : bad(says);
  });
}

/** A number greater than 0 (the dialog's text or a number). */
export function positive(words: string): Rule<number> {
  return rule(words, (value) => {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    return typeof n === 'number' && Number.isFinite(n) && n > 0 ? ok(n) : bad(words);
  });
}

/** One of `values`. */
export function oneOf<const V extends readonly string[]>(values: V, words?: string): Rule<V[number]> {
  const says = words ?? `must be one of ${values.join(', ')}`;
  return rule(says, (value) =>
    typeof value === 'string' && values.includes(value) ? ok(value as V[number]) : bad(says),
  );
}

/**
 * A check box: true or false (flows written by hand or by older versions may
 * hold 'true'/'false'). Anything else reads as `fallback`, the safe side.
 */
export function flag(fallback: boolean): Rule<boolean> {
  return rule('must be true or false', (value) => {
    if (value === true || value === 'true') return ok(true);
    if (value === false || value === 'false') return ok(false);
    return ok(fallback);
  });
}

/** Any value, checked by the library where it is used (a typed input's id, say). */
export const anything = (): Rule<unknown> => rule('', (value) => ok(value));

/** Something that must be given; what it is the library checks, naming the field. */
export function required(words: string): Rule<unknown> {
  const says = `is required: ${words}`;
  return rule(says, (value) => (isBlank(value) ? bad(says) : ok(value)));
}

/** A value that passes `check`, under the name `words`. */
export function matching<T>(check: (value: unknown) => value is T, words: string): Rule<T> {
  return rule(words, (value) => (check(value) ? ok(value) : bad(words)));
}

/**
 * `first`, then `next` on what it gave. Not named `then`: a module exporting
 * `then` is a thenable, and awaiting its import (vitest's module runner does)
 * never settles.
 */
export function andThen<A, B>(first: Rule<A>, next: Rule<B>): Rule<B> {
  return rule(next.text || first.text, (value) => {
    const a = first.read(value);
    return a.ok ? next.read(a.value) : a;
  });
}

/** The type a typed input starts with. */
export function defaultType(field: Field): TypedInputType | undefined {
  return field.type ?? field.types?.[0];
}

/** A reference to a config node, by its id ('' for none). */
const configNodeField = <N extends 'media-spaces-config' | 'media-spaces-coordination'>(
  node: N,
  required: boolean,
  takeOnly: boolean,
) => ({ value: '', node, required, takeOnly, rule: textOrEmpty({ trim: true }) }) as const satisfies Field<string>;

/** The server (media-spaces-config) every node but the config nodes uses; a new node takes the only one there is. */
export const serverField = configNodeField('media-spaces-config', true, true);

/**
 * A media-spaces-coordination node; empty: this instance alone. Never taken
 * for the user: sharing slots with other instances is a choice, not a default.
 */
export const coordinationField = configNodeField('media-spaces-coordination', false, false);

/**
 * msg.idempotency_key: sent as the Idempotency-Key header so a retried POST
 * creates one resource; null or '' is no key.
 */
export const idempotencyKeyField = {
  message: 'idempotency_key',
  rule: optional(matching(isIdempotencyKey, IDEMPOTENCY_KEY_RULE), { null: 'unset' }),
} as const satisfies Field<string | undefined>;
