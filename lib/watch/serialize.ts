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
  const seen = new WeakSet<object>();
  const omitted = new Set(omit);
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
