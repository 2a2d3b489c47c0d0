import type { z } from 'zod';
import { inputMap, settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

export const scheduleSettingsSchema = settingsSchema(FIELDS).transform((s) => ({
  ...s,
  scheduleId: s.scheduleId?.trim() ?? '',
  timezone: s.timezone || undefined,
}));

export type ScheduleSettings = z.infer<typeof scheduleSettingsSchema>;
export type ScheduleSource = ScheduleSettings['source'];

/** A control message's window_id and count: msg.payload.<name>, else msg.<name>. */
export const COMMAND_INPUTS = (({ windowId, count }) => ({ windowId, count }))(inputMap(FIELDS));
