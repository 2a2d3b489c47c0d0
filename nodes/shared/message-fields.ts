import { MediaSpacesError } from '../../lib/errors';
import { IDEMPOTENCY_KEY_RULE, isIdempotencyKey } from '../../lib/rules';
import { describeType } from '../../lib/submit-input';
import type { NodeMessage } from './node-red-types';

/**
 * Checks on message properties that override node settings. Flows build
 * messages from anything (HTTP queries, CSV, function nodes), so each check
 * names the property it read and says what it got; the library then checks
 * the value itself against the description.
 */

/** A message property counts as given unless it is undefined (null is a given, bad value). */
export function given(msg: NodeMessage, property: string): boolean {
  return msg[property] !== undefined;
}

export function invalid(property: string, rule: string, value: unknown): MediaSpacesError {
  return MediaSpacesError.invalidInput(`${property} ${rule}, got ${describeType(value)}`, { [property]: rule });
}

/** Text from a message property or setting; numbers are accepted as their decimal text. */
export function textValue(property: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw invalid(property, 'must be text', value);
}

/** A whole number from a message property or setting; digit strings (from HTTP queries, CSV) are accepted. */
export function wholeNumber(property: string, value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\s*[+-]?\d{1,15}\s*$/.test(value)) return Number(value);
  throw invalid(property, 'must be a whole number', value);
}

/** msg.idempotency_key: sent as the Idempotency-Key header so a retried POST creates one resource. */
export function idempotencyKey(msg: NodeMessage): string | undefined {
  const value = msg.idempotency_key;
  if (value === undefined || value === null || value === '') return undefined;
  if (!isIdempotencyKey(value)) throw invalid('msg.idempotency_key', IDEMPOTENCY_KEY_RULE, value);
  return value;
}
