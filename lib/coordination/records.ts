import { CoordinationError } from './errors';

/** What Redis keeps once a (schedule, slot, phase) was done. */
export interface DoneRecord {
  /** The instance that did it. */
  instance: string;
  /** Its fencing token; 0 when restored from an instance's local knowledge. */
  token: number;
  /** ISO time of completion (the completing instance's clock). */
  completedAt: string;
  /** What the caller stored, e.g. the channel response of a start; JSON. */
  result?: unknown;
  /** True when written by claim({ locallyDone }) after Redis had lost the record. */
  restored?: boolean;
}

export interface HeldBy {
  instance: string;
  token: number;
}

export function encodeJson(what: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new CoordinationError('invalid_input', `${what} must be JSON-serialisable: ${String(err)}`, err);
  }
  if (text === undefined) throw new CoordinationError('invalid_input', `${what} must be JSON-serialisable`);
  return text;
}

export function parseJson<T>(text: unknown): T | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    // a value someone else wrote under our prefix: treat it as absent rather than crash
    return undefined;
  }
}

export function replyArray(reply: unknown): unknown[] {
  return Array.isArray(reply) ? reply : [];
}

export function replyText(value: unknown): string {
  return typeof value === 'string' ? value : value instanceof Buffer ? value.toString('utf8') : String(value ?? '');
}
