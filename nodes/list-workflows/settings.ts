import { z } from 'zod';
import {
  MAX_RESULTS_MAX,
  MAX_RESULTS_MIN,
  MAX_RESULTS_RULE,
  WORKFLOW_STATUS_RULE,
  WORKFLOW_STATUSES,
} from '../../lib/rules';
import { emptyToUndefined, type InputMap, wholeNumber } from '../shared/inputs';
import { MODES } from './modes';

const maxResults = () =>
  wholeNumber().pipe(
    z.number().min(MAX_RESULTS_MIN, { error: MAX_RESULTS_RULE }).max(MAX_RESULTS_MAX, { error: MAX_RESULTS_RULE }),
  );
const status = () => z.enum(WORKFLOW_STATUSES, { error: `${WORKFLOW_STATUS_RULE} (or "" for all)` }).optional();

/** The status setting is `statusFilter`: the editor keeps a node's runtime status in `status`. */
export const ListWorkflowsSettings = z.object({
  server: z.string().default(''),
  mode: z.enum(MODES).catch('all'),
  statusFilter: z.preprocess(emptyToUndefined, status()),
  maxResults: z.preprocess(emptyToUndefined, maxResults().optional()),
});
export type ListWorkflowsSettings = z.infer<typeof ListWorkflowsSettings>;

/** How the edit dialog names the settings, for errors about them. */
export const SETTING_LABELS = { statusFilter: 'status', maxResults: 'max_results' };

/** msg.status, msg.max_results and msg.page_token override the settings. */
export const LIST_INPUTS = {
  status: {
    message: 'status',
    setting: 'statusFilter',
    schema: z.preprocess((v) => (v === '' ? undefined : v), status()),
  },
  maxResults: { message: 'max_results', setting: 'maxResults', schema: maxResults().optional() },
  pageToken: {
    message: 'page_token',
    schema: z
      .string({ error: 'must be text' })
      .nullish()
      .transform((v) => v ?? undefined),
  },
} satisfies InputMap;
