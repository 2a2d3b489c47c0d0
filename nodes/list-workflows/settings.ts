import type { z } from 'zod';
import { inputMap, settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

export const ListWorkflowsSettings = settingsSchema(FIELDS);
export type ListWorkflowsSettings = z.infer<typeof ListWorkflowsSettings>;

/** msg.status, msg.max_results and msg.page_token override the settings. */
export const LIST_INPUTS = inputMap(FIELDS, 'media-spaces-list-workflows');
