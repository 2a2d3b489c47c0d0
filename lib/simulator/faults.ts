import { z } from 'zod';
import { type Area, ROUTE_NAMES, type RouteName } from './router';
import { isoTime } from './timespan';

const FAULT_KINDS = ['status', 'latency', 'drop', 'truncate'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FaultSpec = z
  .strictObject({
    route: z.enum([...ROUTE_NAMES, '*']).default('*'),
    /** Every route of one area: the workflow area or the live-capture area. */
    area: z.enum(['workflow', 'livecapture']).optional(),
    kind: z.enum(FAULT_KINDS),
    status: z.number().int().min(400).max(599).optional(),
    /** Seconds (a whole number) or an HTTP-date; sent as Retry-After. */
    retry_after: z
      .union([
        z.number().int().min(0),
        z.string().regex(/^[\x20-\x7e]{1,64}$/, 'must be 1 to 64 printable characters (an HTTP-date)'),
      ])
      .optional(),
    latency_ms: z.number().int().min(0).max(600_000).optional(),
    /** The next N matching requests; without it, every matching request until cleared. */
    count: z.number().int().min(1).optional(),
    probability: z.number().min(0).max(1).default(1),
    /** Only every Nth matching request (the 3rd, 6th, ...): a steady drill rather than a random one. */
    every: z.number().int().min(2).optional(),
    /** The fault ends by itself this long (simulated time) after it was added. */
    duration_ms: z.number().int().min(1).optional(),
    phase: z.enum(['before', 'after']).optional(),
  })
  .refine((f) => f.kind !== 'latency' || f.latency_ms !== undefined, {
    message: 'latency_ms is required for kind latency',
    path: ['latency_ms'],
  });
export type FaultSpecInput = z.input<typeof FaultSpec>;

export interface Fault {
  id: string;
  route: RouteName | '*';
  area?: Area;
  kind: FaultKind;
  status: number;
  retry_after?: number | string;
  latency_ms: number;
  /** Requests still to affect; null means until cleared. */
  remaining: number | null;
  probability: number;
  every?: number;
  /** Matching requests seen so far, when `every` counts them. */
  seen?: number;
  /** When the fault ends by itself (simulated time, ISO 8601), with duration_ms. */
  ends_at?: string;
  /**
   * `before`: instead of handling (the state is unchanged).
   * `after`: once the request was handled, so the state changed but the
   * client lost or misread the answer; this is what makes retries with an
   * Idempotency-Key meaningful. Status and latency default to before, drop
   * and truncate to after.
   */
  phase: 'before' | 'after';
}

/** At most one fault of each kind applies to a request: the oldest that matches. */
export type MatchedFaults = Partial<Record<FaultKind, Fault>>;

export class FaultRegistry {
  private faults: Fault[] = [];
  private nextId = 1;

  constructor(private readonly random: () => number = Math.random) {}

  /** Fault ids and when each ends (ms), for the faults with a duration. */
  private readonly endsAt = new Map<string, number>();

  add(spec: z.output<typeof FaultSpec>, now: number): Fault {
    const fault: Fault = {
      id: `fault-${this.nextId++}`,
      route: spec.route,
      ...(spec.area === undefined ? {} : { area: spec.area }),
      kind: spec.kind,
      status: spec.status ?? 500,
      ...(spec.retry_after === undefined ? {} : { retry_after: spec.retry_after }),
      latency_ms: spec.latency_ms ?? 0,
      remaining: spec.count ?? null,
      probability: spec.probability,
      ...(spec.every === undefined ? {} : { every: spec.every, seen: 0 }),
      ...(spec.duration_ms === undefined ? {} : { ends_at: isoTime(now + spec.duration_ms) }),
      phase: spec.phase ?? (spec.kind === 'status' || spec.kind === 'latency' ? 'before' : 'after'),
    };
    if (spec.duration_ms !== undefined) this.endsAt.set(fault.id, now + spec.duration_ms);
    this.faults.push(fault);
    return fault;
  }

  get size(): number {
    return this.faults.length;
  }

  list(now: number): Fault[] {
    this.expire(now);
    return this.faults.map((f) => ({ ...f }));
  }

  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    this.endsAt.delete(id);
    return this.faults.length !== before;
  }

  clear(): void {
    this.faults = [];
    this.endsAt.clear();
  }

  /** Picks the faults for one request and uses up their counts; faults past their duration go first. */
  take(route: RouteName, area: Area, now: number): MatchedFaults {
    if (this.endsAt.size > 0) this.expire(now);
    const matched: MatchedFaults = {};
    let exhausted = false;
    for (const f of this.faults) {
      if (matched[f.kind] || (f.route !== '*' && f.route !== route) || (f.area && f.area !== area)) continue;
      if (f.every !== undefined) {
        f.seen = (f.seen ?? 0) + 1;
        if (f.seen % f.every !== 0) continue;
      }
      if (f.probability < 1 && this.random() >= f.probability) continue;
      matched[f.kind] = f;
      if (f.remaining !== null && --f.remaining <= 0) exhausted = true;
    }
    if (exhausted) this.faults = this.faults.filter((f) => f.remaining === null || f.remaining > 0);
    return matched;
  }

  private expire(now: number): void {
    for (const [id, end] of this.endsAt) if (now >= end) this.remove(id);
  }
}
