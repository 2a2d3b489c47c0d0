import { z } from 'zod';
import { ROUTE_NAMES, type RouteName } from './router';

export const FAULT_KINDS = ['status', 'latency', 'drop', 'truncate'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FaultSpec = z
  .strictObject({
    route: z.enum([...ROUTE_NAMES, '*']).default('*'),
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
  kind: FaultKind;
  status: number;
  retry_after?: number | string;
  latency_ms: number;
  /** Requests still to affect; null means until cleared. */
  remaining: number | null;
  probability: number;
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

  add(spec: z.output<typeof FaultSpec>): Fault {
    const fault: Fault = {
      id: `fault-${this.nextId++}`,
      route: spec.route,
      kind: spec.kind,
      status: spec.status ?? 500,
      ...(spec.retry_after === undefined ? {} : { retry_after: spec.retry_after }),
      latency_ms: spec.latency_ms ?? 0,
      remaining: spec.count ?? null,
      probability: spec.probability,
      phase: spec.phase ?? (spec.kind === 'status' || spec.kind === 'latency' ? 'before' : 'after'),
    };
    this.faults.push(fault);
    return fault;
  }

  get size(): number {
    return this.faults.length;
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length !== before;
  }

  clear(): void {
    this.faults = [];
  }

  /** Picks the faults for one request and uses up their counts. */
  take(route: RouteName): MatchedFaults {
    const matched: MatchedFaults = {};
    let exhausted = false;
    for (const f of this.faults) {
      if (matched[f.kind] || (f.route !== '*' && f.route !== route)) continue;
      if (f.probability < 1 && this.random() >= f.probability) continue;
      matched[f.kind] = f;
      if (f.remaining !== null && --f.remaining <= 0) exhausted = true;
    }
    if (exhausted) this.faults = this.faults.filter((f) => f.remaining === null || f.remaining > 0);
    return matched;
  }
}
