import type { z } from 'zod';
import { settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

export const scheduleSettingsSchema = settingsSchema(FIELDS).transform((s) => ({
  ...s,
  scheduleId: s.scheduleId?.trim() ?? '',
  timezone: s.timezone || undefined,
}));

export type ScheduleSettings = z.infer<typeof scheduleSettingsSchema>;
export type ScheduleSource = ScheduleSettings['source'];
