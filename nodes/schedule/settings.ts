import { z } from 'zod';

import { SCHEDULE_SOURCES } from './sources';

/** Text boxes the editor leaves unset arrive as undefined (or, from old flows, as other types): read as ''. */
const text = z.string().catch('');
const trimmed = text.transform((s) => s.trim());

/**
 * The schedule node's settings. A value the dialog cannot produce falls back
 * to its default rather than failing the node: a schedule that does not run
 * because of a stray setting would miss recordings, and each fallback is
 * harmless (the source defaults to inline YAML, whose problems are reported).
 */
export const scheduleSettingsSchema = z.object({
  source: z.enum(SCHEDULE_SOURCES).catch('yaml'),
  yaml: text,
  file: trimmed,
  windows: z.unknown().optional(),
  scheduleId: trimmed,
  timezone: trimmed.transform((s) => s || undefined),
  // the editor stores the checkbox as a boolean, old flows as 'true'/'false': only an explicit false turns it off
  catchUp: z
    .unknown()
    .optional()
    .transform((v) => v !== false && v !== 'false'),
  server: text,
  /** the media-spaces-coordination node's id; empty: this instance alone */
  coordination: trimmed,
  // fs.watchFile polls: below 20 ms it would spin
  watchInterval: z.coerce.number().finite().min(20).catch(1000),
});

export type ScheduleSettings = z.infer<typeof scheduleSettingsSchema>;
export type ScheduleSource = ScheduleSettings['source'];
