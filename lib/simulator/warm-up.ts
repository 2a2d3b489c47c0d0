/** Offsets of a channel's lifecycle from its creation: ACTIVE after 1 s, then RECORDING after its warm-up. */
export const CHANNEL_ACTIVE_AFTER_MS = 1000;
/** The warm-up a channel is created with unless the admin API set another (`/__admin/warm-up`). */
export const CHANNEL_RECORDING_AFTER_MS = 2000;
/** The warm-ups the admin API accepts: ACTIVE comes 1 s after creation, before any recording. */
export const WARM_UP_MIN_MS = CHANNEL_ACTIVE_AFTER_MS;
export const WARM_UP_MAX_MS = 600_000;
