/**
 * Makes a plain-JSON copy of a message so that it can be kept in a context
 * store: functions, symbols and cyclic references are dropped, bigints become
 * strings, Buffers become `{type:'Buffer', data}` (as JSON.stringify does), and
 * the HTTP request/response objects an `http in` node puts on a message
 * (`req`, `res`) are left out.
 */
export function toSerializable(
  msg: unknown,
  omit: readonly string[] = ['req', 'res', 'socket'],
): Record<string, unknown> {
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return {};
  const omitted = new Set(omit);
  let copied: Record<string, unknown> | undefined;
  try {
    copied = plainCopy(msg as Record<string, unknown>, omitted);
  } catch {
    // a throwing getter or a proxy: the round trip decides what becomes of it
  }
  if (copied !== undefined) return copied;
  return jsonRoundTrip(msg, omitted);
}

/**
 * The message itself when it is plain JSON already (what toSerializable would
 * return a copy of, equal in every field), else toSerializable's copy. For a
 * party that holds the message anyway and keeps it unchanged while it waits
 * (a followed job's input): the saved form then costs no second object tree.
 */
export function serializableOrSelf(
  msg: unknown,
  omit: readonly string[] = ['req', 'res', 'socket'],
): Record<string, unknown> {
  if (msg !== null && typeof msg === 'object' && Object.getPrototypeOf(msg) === Object.prototype) {
    const record = msg as Record<string, unknown>;
    try {
      if (!omit.some((key) => Object.hasOwn(record, key)) && isPlainJson(record, new Set())) return record;
    } catch {
      // a throwing getter: the copy decides what becomes of it
    }
  }
  return toSerializable(msg, omit);
}

/** True when a JSON round trip gives back an equal value: no field dropped, renamed or changed. */
function isPlainJson(value: unknown, seen: Set<object>): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      // JSON writes -0 as 0 and non-finite numbers as null
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (seen.has(value)) return false;
  seen.add(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) {
      // a hole or undefined becomes null
      if (!(i in value) || value[i] === undefined || !isPlainJson(value[i], seen)) return false;
    }
    return true;
  }
  // a copy's objects have Object.prototype: one without a prototype is copied
  if (Object.getPrototypeOf(value) !== Object.prototype || !isPlainRecord(value)) return false;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    // undefined is left out of a copy, and __proto__ becomes a plain field of one
    if (key === '__proto__' || record[key] === undefined || !isPlainJson(record[key], seen)) return false;
  }
  return true;
}

/** The general case: whatever JSON.stringify makes of the message, parsed again. */
function jsonRoundTrip(msg: object, omitted: ReadonlySet<string>): Record<string, unknown> {
  const seen = new WeakSet<object>();
  let text: string | undefined;
  try {
    text = JSON.stringify(msg, function replacer(this: unknown, key: string, value: unknown) {
      if (this === msg && omitted.has(key)) return undefined;
      if (typeof value === 'bigint') return value.toString();
      if (typeof value === 'function' || typeof value === 'symbol') return undefined;
      if (value !== null && typeof value === 'object') {
        if (seen.has(value)) return undefined;
        seen.add(value);
      }
      return value;
    });
  } catch {
    return {};
  }
  if (text === undefined) return {};
  const parsed = JSON.parse(text) as unknown;
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

const NOT_PLAIN = Symbol('not plain');

/**
 * The common case, a message of plain objects, arrays, strings, finite numbers,
 * booleans and null: copied structurally, giving the same result as the JSON round
 * trip, but the copy shares the message's strings (immutable, so sharing is safe)
 * instead of holding its own. A followed job keeps such a copy for a restart, so
 * this halves what each one holds. Anything else (a Date, a Buffer, a
 * function, a bigint, a class instance, an object met twice, ...) returns
 * undefined and takes the JSON round trip.
 */
function plainCopy(msg: Record<string, unknown>, omitted: ReadonlySet<string>): Record<string, unknown> | undefined {
  if (!isPlainRecord(msg)) return undefined;
  const seen = new Set<object>([msg]);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(msg)) {
    if (omitted.has(key)) continue;
    const value = copyValue(msg[key], seen);
    if (value === NOT_PLAIN) return undefined;
    if (value !== undefined) setOwn(out, key, value);
  }
  return out;
}

function copyValue(value: unknown, seen: Set<object>): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return value;
    case 'number':
      // JSON writes -0 as 0 and non-finite numbers as null
      return Number.isFinite(value) ? value + 0 : null;
    case 'object':
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return null;
  if (seen.has(value)) return NOT_PLAIN;
  seen.add(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = copyValue(value[i], seen);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item === undefined ? null : item;
    }
    return out;
  }
  if (!isPlainRecord(value)) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyValue(value[key], seen);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    if (item !== undefined) setOwn(out, key, item);
  }
  return out;
}

function isPlainRecord(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** As JSON.parse does: `__proto__` becomes an own property, never the prototype. */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
