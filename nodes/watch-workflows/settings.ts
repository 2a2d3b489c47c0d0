import type { z } from 'zod';
import { settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

export const watchWorkflowsSettings = settingsSchema(FIELDS);
export type WatchWorkflowsSettings = z.infer<typeof watchWorkflowsSettings>;
