/**
 * The names a slot's channel and follow-up job get when its window names neither: the programme's title and
 * episode (else the window's name), the date and the time with seconds, in the window's zone. A module of its
 * own so that the editor shows the same text as its placeholder.
 */
export const DEFAULT_CHANNEL_NAME = '{{occurrence.name}} {{slot.date}} {{slot.time}}';
export const DEFAULT_JOB_NAME = '{{occurrence.name}} {{slot.date}} {{slot.time}}';
