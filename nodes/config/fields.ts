import { WORKFLOW_PREFIXES } from '../../lib/rules';
import { fieldTable, flag, oneOf, orDefault, positive, textOrEmpty, whole } from '../shared/fields';

const TIMEOUT_MS = 30_000;
const RETRIES = 3;

/**
 * The media-spaces-config node's fields. The URLs and the space id are read
 * as typed ("Test connection" tries them as they are); their rules are
 * checked after, by setting-checks.ts, which also gives the warnings.
 */
export const FIELDS = fieldTable({
  workflowUrl: { value: '', required: true, rule: textOrEmpty({ trim: true }) },
  liveCaptureUrl: { value: '', rule: textOrEmpty({ trim: true }) },
  spaceId: { value: '', required: true, rule: textOrEmpty({ trim: true }) },
  workflowPrefix: {
    value: WORKFLOW_PREFIXES[0],
    rule: orDefault(oneOf(WORKFLOW_PREFIXES, `must be ${WORKFLOW_PREFIXES.join(' or ')}`), WORKFLOW_PREFIXES[0]),
  },
  timeout: { value: TIMEOUT_MS, rule: orDefault(positive('must be a positive number of milliseconds'), TIMEOUT_MS) },
  retries: { value: RETRIES, rule: orDefault(whole(0, 10), RETRIES) },
  // anything but an explicit "off" keeps certificate checks on
  rejectUnauthorized: { value: true, rule: flag(true) },
});
