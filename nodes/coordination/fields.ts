import { DEFAULT_KEY_PREFIX } from '../../lib/coordination/keys';
import { checkRedisUrl, REDIS_URL_RULE } from '../../lib/coordination/url';
import { UNREACHABLE_POLICIES } from '../shared/coordination-provider';
import { fieldTable, oneOf, orDefault, rule, textOrEmpty, whole } from '../shared/fields';

const LEASE_MS = 30_000;
const DONE_TTL_DAYS = 7;
const DONE_TTL_RULE = 'must be 1 to 365 days';

/** The media-spaces-coordination config node's fields. */
export const FIELDS = fieldTable({
  url: {
    value: 'redis://127.0.0.1:6379',
    required: true,
    rule: rule(REDIS_URL_RULE, (value) => {
      const checked = checkRedisUrl(value);
      return checked.ok ? { ok: true, value: String(value).trim() } : { ok: false, rule: checked.rule };
    }),
  },
  keyPrefix: { value: DEFAULT_KEY_PREFIX, rule: textOrEmpty() },
  leaseMs: { value: LEASE_MS, rule: orDefault(whole(1000, 3_600_000, 'must be 1000 to 3600000 ms'), LEASE_MS) },
  // a fraction of a day is a valid keep time
  doneTtlDays: {
    value: DONE_TTL_DAYS,
    rule: orDefault(
      rule(DONE_TTL_RULE, (value) => {
        const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
        return typeof n === 'number' && n >= 1 && n <= 365
          ? { ok: true, value: n }
          : { ok: false, rule: DONE_TTL_RULE };
      }),
      DONE_TTL_DAYS,
    ),
  },
  /** What a schedule does with a slot while Redis cannot be used. */
  whenUnreachable: {
    value: UNREACHABLE_POLICIES[0],
    rule: orDefault(oneOf(UNREACHABLE_POLICIES, 'must be skip or alone'), UNREACHABLE_POLICIES[0]),
  },
});
