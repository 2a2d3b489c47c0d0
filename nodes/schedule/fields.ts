import { ID_PATTERN } from '../../lib/schedule/ids';
import {
  anything,
  coordinationField,
  fieldTable,
  flag,
  matching,
  oneOf,
  optional,
  rule,
  serverField,
  textOrEmpty,
} from '../shared/fields';
import { SCHEDULE_SOURCES } from './sources';

const DEFAULT_YAML = `timezone: Europe/London
windows:
  - id: evening-news
    name: Evening news
    cron: "0 18 * * mon-fri"
    duration: 1h30m
`;

export const SCHEDULE_ID_RULE = 'Schedule id must be 1 to 64 letters, digits, _ . - (starting with a letter or digit)';
export const isScheduleId = (value: unknown): value is string =>
  typeof value === 'string' && ID_PATTERN.test(value.trim());

/** fs.watchFile polls: below 20 ms it would spin. */
const WATCH_RULE = 'must be a number of ms, 20 or more';
const watchInterval = rule(WATCH_RULE, (value) => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 20
    ? { ok: true, value: n }
    : { ok: false, rule: WATCH_RULE };
});

const nonBlankText = matching(
  (value): value is string => typeof value === 'string' && value.trim() !== '',
  'must be the id of a window (text)',
);

/** How many starts `list` shows: 1 to 100, a whole number; anything else shows the next 10. */
const listCount = rule('is the number of starts to list', (value) => ({
  ok: true,
  value: typeof value === 'number' && Number.isInteger(value) ? Math.min(100, Math.max(1, value)) : 10,
}));

/**
 * The schedule node's fields. A bad one is warned about and read as its
 * default rather than failing the node: a schedule that does not run because
 * of a stray setting would miss recordings. The time zone's name is left to
 * the library, which refuses an unknown zone with the schedule's other
 * problems (a schedule must not run in a zone it was not given).
 */
export const FIELDS = fieldTable({
  source: { value: 'yaml', rule: oneOf(SCHEDULE_SOURCES) },
  // a node stored without YAML has no windows; only a new node starts with the example
  yaml: { value: DEFAULT_YAML, missing: '', rule: textOrEmpty() },
  file: { value: '', rule: textOrEmpty({ trim: true }) },
  windows: { value: [], rule: anything() },
  // any text the runtime took before keeps its slot keys (and so its idempotency keys); the dialog asks for an id
  scheduleId: { value: '', rule: textOrEmpty({ trim: true }) },
  timezone: { value: '', rule: textOrEmpty({ trim: true }) },
  // only an explicit false turns it off (the check box stores a boolean, old flows 'true'/'false')
  catchUp: { value: true, rule: flag(true) },
  server: { ...serverField, required: false },
  coordination: coordinationField,
  watchInterval: { value: 1000, rule: watchInterval },
  // a control message's inputs: msg.payload.<name> (the request form), else msg.<name>
  windowId: { message: 'window_id', payload: 'window_id', rule: optional(nonBlankText, { empty: 'refused' }) },
  count: { message: 'count', payload: 'count', rule: listCount },
});
