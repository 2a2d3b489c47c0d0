import { CoordinationError } from '../../lib/coordination';

/** The config node's properties as the editor stores them, checked once per deploy. */
export type UnreachablePolicy = 'skip' | 'alone';

export interface CoordinationSettings {
  url: string;
  keyPrefix: string;
  leaseMs: number;
  doneTtlMs: number;
  /** What a schedule does with a slot while Redis cannot be used. */
  whenUnreachable: UnreachablePolicy;
}

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_DONE_TTL_DAYS = 7;
const DAY_MS = 24 * 3600_000;

export function parseCoordinationSettings(def: Record<string, unknown>): CoordinationSettings {
  const leaseMs = numberOr(def.leaseMs, DEFAULT_LEASE_MS);
  if (!Number.isInteger(leaseMs) || leaseMs < 1000 || leaseMs > 3_600_000) {
    throw new CoordinationError(
      'invalid_config',
      `lease must be 1000 to 3600000 ms, got ${JSON.stringify(def.leaseMs)}`,
    );
  }
  const doneTtlDays = numberOr(def.doneTtlDays, DEFAULT_DONE_TTL_DAYS);
  if (!(doneTtlDays >= 1 && doneTtlDays <= 365)) {
    throw new CoordinationError(
      'invalid_config',
      `done records must be kept 1 to 365 days, got ${JSON.stringify(def.doneTtlDays)}`,
    );
  }
  const policy = def.whenUnreachable === undefined || def.whenUnreachable === '' ? 'skip' : def.whenUnreachable;
  if (policy !== 'skip' && policy !== 'alone') {
    throw new CoordinationError(
      'invalid_config',
      `whenUnreachable must be skip or alone, got ${JSON.stringify(policy)}`,
    );
  }
  return {
    url: typeof def.url === 'string' ? def.url : '',
    keyPrefix: typeof def.keyPrefix === 'string' ? def.keyPrefix : '',
    leaseMs,
    doneTtlMs: Math.round(doneTtlDays * DAY_MS),
    whenUnreachable: policy,
  };
}

function numberOr(value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  return typeof value === 'number' ? value : Number(value);
}
