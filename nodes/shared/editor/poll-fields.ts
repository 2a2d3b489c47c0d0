/**
 * Field checks the three polling nodes' dialogs share. The runtime reads the
 * same fields through nodes/shared/poll-settings.ts; these checks only mark a
 * field red before deploy. The defaults stay inline in each editor, where the
 * catalogue's validator (node-red-dev) looks for them.
 */

const WHOLE = /^\s*\d+\s*$/;

/** A whole number of at least `min` (text from the dialog or a number); blank passes when `blankAllowed`. */
export function wholeNumberAtLeast(min: number, blankAllowed: boolean): (value: unknown) => boolean {
  return (value) => {
    if (value === '' || value === undefined || value === null) return blankAllowed;
    return WHOLE.test(String(value)) && Number(value) >= min;
  };
}
