import type { z } from 'zod';
import { inputMap, settingsSchema } from '../shared/settings';
import { FIELDS } from './fields';

export const scheduleSettingsSchema = settingsSchema(FIELDS).transform((s) => ({
  ...s,
  scheduleId: s.scheduleId?.trim() ?? '',
  timezone: s.timezone || undefined,
}));

export type ScheduleSettings = z.infer<typeof scheduleSettingsSchema>;

const inputs = inputMap(FIELDS, 'media-spaces-schedule');

/** A control message's window_id (trigger, skip) and count (list): msg.payload.<name>, else msg.<name>. */
export const WINDOW_INPUT = { windowId: inputs.windowId };
export const COUNT_INPUT = { count: inputs.count };
