import { DEFAULT_BACKOFF_MAX_MS, DEFAULT_INTERVAL_MS } from '../../../lib/rules';

/**
 * Dialog fields the three polling nodes share. The runtime reads the same
 * fields through nodes/shared/poll-settings.ts; these checks only mark a
 * field red before deploy.
 */

const WHOLE = /^\s*\d+\s*$/;

/** A whole number of at least `min` (text from the dialog or a number); blank passes when `blankAllowed`. */
export function wholeNumberAtLeast(min: number, blankAllowed: boolean): (value: unknown) => boolean {
  return (value) => {
    if (value === '' || value === undefined || value === null) return blankAllowed;
    return WHOLE.test(String(value)) && Number(value) >= min;
  };
}

/** Interval and max backoff: their defaults and checks. */
export function pollTimingDefaults(): Record<string, EditorNodeProperty> {
  return {
    interval: { value: DEFAULT_INTERVAL_MS, required: true, validate: wholeNumberAtLeast(1, false) },
    backoffMax: { value: DEFAULT_BACKOFF_MAX_MS, validate: wholeNumberAtLeast(1, true) },
  };
}

/** The Timeout field: blank for the node's default, 0 for none. */
export function timeoutDefault(): EditorNodeProperty {
  return { value: '', validate: wholeNumberAtLeast(0, true) };
}
