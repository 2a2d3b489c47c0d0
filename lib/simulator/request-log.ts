import type { RouteName } from './router';
import { isoTime } from './timespan';

/** One received request, as the admin API reports it. Credentials are never recorded, only their presence. */
export interface RequestLogEntry {
  /** Simulated time the request arrived (ISO 8601). */
  time: string;
  method: string;
  path: string;
  query: Record<string, string>;
  route: RouteName | 'unknown';
  /** null when the connection was dropped without a response. */
  status: number | null;
  idempotency_key: string | null;
  authorization_present: boolean;
  /** The injected fault kinds that affected the request, comma separated. */
  fault?: string;
  /** True when the response was a replay of an earlier one with the same Idempotency-Key. */
  replayed?: boolean;
}

/** What the hot path stores: cheap to create, turned into RequestLogEntry only when read. */
export interface RawLogEntry {
  at: number;
  method: string;
  path: string;
  rawQuery: string;
  route: RouteName | 'unknown';
  status: number | null;
  idempotencyKey: string | null;
  authorizationPresent: boolean;
  fault: string | undefined;
  replayed: boolean;
}

const REQUEST_LOG_CAPACITY = 10_000;

/** A ring of the latest requests; a benchmark's millions of requests keep only the last 10,000. */
export class RequestLog {
  private ring: RawLogEntry[] = [];
  private next = 0;

  constructor(private readonly capacity = REQUEST_LOG_CAPACITY) {}

  add(entry: RawLogEntry): void {
    if (this.ring.length < this.capacity) this.ring.push(entry);
    else this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
  }

  clear(): void {
    this.ring = [];
    this.next = 0;
  }

  /** Oldest first. */
  entries(): RequestLogEntry[] {
    const ordered =
      this.ring.length < this.capacity ? this.ring : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    return ordered.map(present);
  }
}

function present(e: RawLogEntry): RequestLogEntry {
  return {
    time: isoTime(e.at),
    method: e.method,
    path: e.path,
    query: Object.fromEntries(new URLSearchParams(e.rawQuery)),
    route: e.route,
    status: e.status,
    idempotency_key: e.idempotencyKey,
    authorization_present: e.authorizationPresent,
    ...(e.fault ? { fault: e.fault } : {}),
    ...(e.replayed ? { replayed: true } : {}),
  };
}
