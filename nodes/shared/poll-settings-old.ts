import { z } from 'zod';

/** Blank text (the editor's empty box) counts as unset. */
const blankToUnset = (value: unknown): unknown => (value === '' || value === null ? undefined : value);

/** A whole number of at least `min`, given as a number or as the editor's text; blank: unset. */
export const wholeSetting = (min: number) => z.preprocess(blankToUnset, z.coerce.number().int().min(min).optional());

/** Interval and max backoff, shared by the three polling nodes. */
export const pollTimingFields = {
  interval: wholeSetting(1),
  backoffMax: wholeSetting(1),
};

/** The dialog's names of the shared fields, for warnings and errors. */
export const POLL_LABELS = { interval: 'Interval', backoffMax: 'Max backoff', timeout: 'Timeout' };
