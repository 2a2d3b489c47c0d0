import { z } from 'zod';
import { DEFAULT_BACKOFF_MAX_MS, DEFAULT_INTERVAL_MS } from '../../lib/rules';
import type { NodeDef } from './node-red-types';
import { parseSettings } from './settings';

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

export interface PollTimingMs {
  intervalMs: number;
  backoffMaxMs: number;
}

/** The timing lib/watch takes: the backoff never shorter than the interval. */
export function pollTiming(settings: { interval?: number; backoffMax?: number }): PollTimingMs {
  const intervalMs = settings.interval ?? DEFAULT_INTERVAL_MS;
  const backoffMaxMs = settings.backoffMax ?? Math.max(DEFAULT_BACKOFF_MAX_MS, intervalMs);
  return { intervalMs, backoffMaxMs: Math.max(intervalMs, backoffMaxMs) };
}

/**
 * A polling node's settings through its schema, forgiving: a setting that
 * does not fit (a hand-edited flow file, say) is warned about by its dialog
 * label and replaced by its default, so the node still polls. A flow written
 * before a field existed must not stop a node either.
 */
export function readPollSettings<S extends z.ZodType>(
  schema: S,
  def: NodeDef,
  labels: Record<string, string>,
  warn: (text: string) => void,
): z.infer<S> {
  const first = schema.safeParse(def);
  if (first.success) return first.data;
  const cleaned: NodeDef = { ...def };
  for (const issue of first.error.issues) {
    const key = String(issue.path[0] ?? '');
    if (!(key in cleaned)) continue;
    warn(`${labels[key] ?? key}: ${issue.message}; using the default`);
    delete cleaned[key];
  }
  return parseSettings(schema, cleaned, labels);
}
