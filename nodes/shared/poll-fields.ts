import { DEFAULT_BACKOFF_MAX_MS, DEFAULT_INTERVAL_MS } from '../../lib/rules';
import { type Field, optional, orDefault, whole } from './fields';

/** The fields the three polling nodes share (browser-safe: their dialogs use them too). */
export const POLL_FIELDS = {
  interval: { value: DEFAULT_INTERVAL_MS, required: true, rule: orDefault(whole(1), DEFAULT_INTERVAL_MS) },
  backoffMax: { value: DEFAULT_BACKOFF_MAX_MS, rule: optional(whole(1)) },
} as const satisfies Record<string, Field>;

/** Give up after this many ms; msg.timeout overrides it for one message; 0: never. */
export const timeoutField = {
  value: '',
  message: 'timeout',
  rule: optional(whole(0, Number.MAX_SAFE_INTEGER, 'must be 0 (no timeout) or a whole number of ms'), {
    empty: 'refused',
  }),
} as const satisfies Field;
