import { CoordinationError } from './errors';

/** One step of one slot of one schedule: what two instances must not both do. */
export interface SlotRef {
  /** A stable id of the schedule, the same on every instance (e.g. the schedule node's id). */
  schedule: string;
  /** The slot's planned time (not the time the timer fired): ISO 8601 text, a Date or epoch ms. */
  slot: string | Date | number;
  /** e.g. `start` or `end`. */
  phase: string;
  /**
   * The occurrence's own id when it has one (a calendar's UID, a guide's episode): the key names it rather than
   * the time, which may move. The time still sets the high-water mark.
   */
  occurrence?: string;
}

export const DEFAULT_KEY_PREFIX = 'media-spaces:';
const MAX_NAME_LENGTH = 200;

/** `''`/undefined → the default; otherwise the text, with a `:` added so keys stay readable. */
export function normalizeKeyPrefix(input: unknown): string {
  if (input === undefined || input === null || input === '') return DEFAULT_KEY_PREFIX;
  if (typeof input !== 'string' || input.length > 100 || /[\s\p{Cc}]/u.test(input)) {
    throw new CoordinationError(
      'invalid_config',
      `keyPrefix must be up to 100 characters without spaces, got ${JSON.stringify(String(input).slice(0, 120))}`,
    );
  }
  return input.endsWith(':') ? input : `${input}:`;
}

export function checkName(what: string, value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_NAME_LENGTH) {
    throw new CoordinationError(
      'invalid_input',
      `${what} must be a non-empty string of up to ${MAX_NAME_LENGTH} characters, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * The slot as one canonical text (UTC, milliseconds), so that instances that
 * computed the same slot from different time zones or representations meet on
 * the same key, and so that texts order like times (for the high-water mark).
 */
export function normalizeSlot(slot: unknown): string {
  const date =
    slot instanceof Date ? slot : typeof slot === 'string' || typeof slot === 'number' ? new Date(slot) : null;
  if (date === null || Number.isNaN(date.getTime())) {
    throw new CoordinationError(
      'invalid_input',
      `slot must be an ISO 8601 time, a Date or epoch ms, got ${JSON.stringify(slot)}`,
    );
  }
  return date.toISOString();
}

function part(value: string): string {
  // ':' separates key parts, so ids that contain one cannot collide with another split
  return encodeURIComponent(value);
}

interface SlotKeys {
  /** the latest end any instance has seen for the slot (a listed occurrence may move) */
  latestEnd: string;
  claim: string;
  done: string;
  fence: string;
  highWater: string;
  slot: string;
}

export function slotKeys(prefix: string, ref: SlotRef): SlotKeys {
  const schedule = part(checkName('schedule', ref.schedule));
  const phase = part(checkName('phase', ref.phase));
  const slot = normalizeSlot(ref.slot);
  const which = ref.occurrence !== undefined ? `o:${part(checkName('occurrence', ref.occurrence))}` : slot;
  const base = `${prefix}slot:${schedule}:${which}:${phase}`;
  return {
    latestEnd: `${prefix}slot:${schedule}:${which}:latest-end`,
    claim: `${base}:claim`,
    done: `${base}:done`,
    fence: `${base}:fence`,
    highWater: `${prefix}hwm:${schedule}`,
    slot,
  };
}

export function highWaterKey(prefix: string, schedule: string): string {
  return `${prefix}hwm:${part(checkName('schedule', schedule))}`;
}

export function lockKeys(prefix: string, name: string): { lock: string; fence: string } {
  const base = `${prefix}lock:${part(checkName('lock name', name))}`;
  return { lock: base, fence: `${base}:fence` };
}

export function jobKeys(prefix: string, jobId: string): { jobs: string; reported: string } {
  return { jobs: `${prefix}jobs`, reported: `${prefix}job:${part(checkName('job id', jobId))}:reported` };
}

export function jobsKey(prefix: string): string {
  return `${prefix}jobs`;
}
