import type { z } from 'zod';
import { inputMap, settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

export const followJobSettings = settingsSchema(FIELDS);
export type FollowJobSettings = z.infer<typeof followJobSettings>;

/** msg.job_id, msg.workflow_id and msg.timeout (over the Timeout setting). */
export const FOLLOW_INPUTS = inputMap(FIELDS, 'media-spaces-follow-job');
