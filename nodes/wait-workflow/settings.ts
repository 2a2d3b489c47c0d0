import type { z } from 'zod';
import { inputMap, settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

export const waitWorkflowSettings = settingsSchema(FIELDS);
export type WaitWorkflowSettings = z.infer<typeof waitWorkflowSettings>;

/** msg.workflow_id, msg.workflow_name and msg.timeout (over the Timeout setting). */
export const WAIT_INPUTS = inputMap(FIELDS, 'media-spaces-wait-workflow');
