import type { z } from 'zod';
import { settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

export const asRunSettings = settingsSchema(FIELDS);
export type AsRunSettings = z.infer<typeof asRunSettings>;
