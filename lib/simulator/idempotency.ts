/**
 * Idempotency-Key bookkeeping for POSTs, scoped per space, route and key.
 * The first request with a key is "in flight" until its response is known;
 * then that exact response (status, headers, body) is replayed for the same
 * payload. Entries are kept in insertion order and the oldest are dropped past
 * a cap, so a long benchmark that sends a fresh key per POST cannot grow
 * memory without bound; retries happen within seconds, far inside the cap.
 */

interface StoredResponse {
  status: number;
  body: string | undefined;
  headers: Record<string, string>;
}

type Entry = { scope: string; fingerprint: string; response: StoredResponse | null };

type IdempotencyOutcome =
  | { kind: 'new' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in_flight' }
  | { kind: 'mismatch' };

const IDEMPOTENCY_CAP = 50_000;

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();
  /**
   * Insertion order, oldest at `head`. Evicting through `entries.keys().next()`
   * instead made V8 walk every deleted slot at the front of the Map's table on
   * each request once the cap was reached: it was the simulator's costliest
   * function under load. A released entry stays here until its turn and is
   * then skipped, since the Map no longer holds that very object.
   */
  private order: Entry[] = [];
  private head = 0;

  constructor(private readonly cap = IDEMPOTENCY_CAP) {}

  /**
   * `fingerprint` is what identifies the request; two that differ as strings may
   * still be the same request (fields reordered), which `equivalent` decides. It
   * runs only when a key comes back with a different fingerprint, so the common
   * case (a fresh key) never pays for canonicalisation.
   */
  begin(
    scope: string,
    fingerprint: string,
    equivalent: (stored: string, incoming: string) => boolean = (a, b) => a === b,
  ): IdempotencyOutcome {
    const entry = this.entries.get(scope);
    if (!entry) {
      const created: Entry = { scope, fingerprint, response: null };
      this.entries.set(scope, created);
      this.order.push(created);
      if (this.entries.size > this.cap) this.evictOldest();
      else if (this.order.length - this.head > 2 * this.cap) this.compact();
      return { kind: 'new' };
    }
    if (entry.fingerprint !== fingerprint && !equivalent(entry.fingerprint, fingerprint)) return { kind: 'mismatch' };
    return entry.response ? { kind: 'replay', response: entry.response } : { kind: 'in_flight' };
  }

  complete(scope: string, response: StoredResponse): void {
    const entry = this.entries.get(scope);
    if (entry) entry.response = response;
  }

  /** Forgets a key whose request did not produce a result worth replaying (a 5xx), so a retry runs again. */
  release(scope: string): void {
    this.entries.delete(scope);
  }

  clear(): void {
    this.entries.clear();
    this.order = [];
    this.head = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Released entries pile up in the queue when many requests fail (a fault that answers 500 throughout). */
  private compact(): void {
    this.order = this.order.slice(this.head).filter((e) => this.entries.get(e.scope) === e);
    this.head = 0;
  }

  private evictOldest(): void {
    while (this.head < this.order.length) {
      const oldest = this.order[this.head++];
      if (this.entries.get(oldest.scope) === oldest) {
        this.entries.delete(oldest.scope);
        break;
      }
    }
    // Drop the consumed front now and then, so the queue stays near the cap.
    if (this.head > this.cap) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * Serialises JSON with sorted keys, so a retry that reorders fields still matches.
 * Iterative, with its own stack of what is left to write, so no nesting can
 * overflow the call stack.
 */
export function canonicalJson(value: unknown): string {
  let out = '';
  // what is left to write, last first: a value, or literal text (brackets, commas, keys)
  const todo: Array<{ value: unknown } | string> = [{ value }];
  while (todo.length > 0) {
    const item = todo.pop() as { value: unknown } | string;
    if (typeof item === 'string') {
      out += item;
      continue;
    }
    const v = item.value;
    if (Array.isArray(v)) {
      todo.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        todo.push({ value: v[i] });
        if (i > 0) todo.push(',');
      }
      out += '[';
    } else if (v && typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      todo.push('}');
      for (let i = keys.length - 1; i >= 0; i--) {
        todo.push({ value: obj[keys[i]] });
        todo.push(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`);
      }
      out += '{';
    } else out += JSON.stringify(v) ?? 'null';
  }
  return out;
}
