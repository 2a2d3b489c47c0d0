import type { z } from 'zod';
import { inputMap, settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

export const SubmitJobSettings = settingsSchema(FIELDS);
export type SubmitJobSettings = z.infer<typeof SubmitJobSettings>;

const derived = inputMap(FIELDS, 'media-spaces-submit-job');

/**
 * msg.workflow_id, msg.job_name and msg.idempotency_key; the workflow id and
 * the inputs are typed inputs. Errors call the inputs "inputs", as the dialog
 * does.
 */
export const SUBMIT_INPUTS = { ...derived, jobInputs: { ...derived.jobInputs, name: 'inputs' } };
