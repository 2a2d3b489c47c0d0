import { MediaSpacesError } from '../../lib/errors';
import { describeType } from '../../lib/submit-input';

/**
 * The create-channel node's recording_duration setting, read as a whole
 * number named by where it came from. Every other message property and
 * setting is read through a node's field table (fields.ts, inputs.ts).
 */

/** A whole number from a setting; digit strings (the dialog's text box) are accepted. */
export function wholeNumber(property: string, value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\s*[+-]?\d{1,15}\s*$/.test(value)) return Number(value);
  const rule = 'must be a whole number';
  throw MediaSpacesError.invalidInput(`${property} ${rule}, got ${describeType(value)}`, { [property]: rule });
}
