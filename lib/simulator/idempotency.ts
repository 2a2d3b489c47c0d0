/**
 * Idempotency-Key bookkeeping for POSTs, scoped per space, route and key.
 * The first request with a key is "in flight" until its response is known;
 * then that exact response (status, headers, body) is replayed for the same
 * payload. Entries are kept in insertion order and the oldest are dropped past
 * a cap, so a long benchmark that sends a fresh key per POST cannot grow
 * memory without bound; retries happen within seconds, far inside the cap.
 */

export interface StoredResponse {
  status: number;
  body: string | undefined;
  headers: Record<string, string>;
}

type Entry = { fingerprint: string; response: StoredResponse | null };

export type IdempotencyOutcome =
  | { kind: 'new' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in_flight' }
  | { kind: 'mismatch' };

export const IDEMPOTENCY_CAP = 50_000;

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly cap = IDEMPOTENCY_CAP) {}

  begin(scope: string, fingerprint: string): IdempotencyOutcome {
    const entry = this.entries.get(scope);
    if (!entry) {
      this.entries.set(scope, { fingerprint, response: null });
      if (this.entries.size > this.cap) this.entries.delete(this.entries.keys().next().value as string);
      return { kind: 'new' };
    }
    if (entry.fingerprint !== fingerprint) return { kind: 'mismatch' };
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
  }
}

/** Serialises JSON with sorted keys, so a retry that reorders fields still matches. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
