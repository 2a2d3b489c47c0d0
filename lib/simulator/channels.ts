import type { ChannelState } from '../schemas';
import type { ChannelRecord } from './state';
import { isoTime } from './timespan';

/** Offsets of the channel lifecycle from its creation. */
export const CHANNEL_ACTIVE_AFTER_MS = 1000;
export const CHANNEL_RECORDING_AFTER_MS = 2000;
/** How long FINISHING_RECORDING lasts before the channel is INACTIVE with its outputs. */
export const CHANNEL_FINISHING_MS = 2000;
const HOUR_MS = 3_600_000;

export const OUTPUT_BUCKET = 's3://media-spaces-sim';

/** When the recording starts and ends, given an optional early stop. */
export function recordingWindow(ch: ChannelRecord): { startAt: number; endAt: number } {
  const startAt = ch.createdAt + CHANNEL_RECORDING_AFTER_MS;
  const scheduledEnd = startAt + ch.recordingDurationHours * HOUR_MS;
  const endAt = ch.stoppedAt === null ? scheduledEnd : Math.max(startAt, Math.min(ch.stoppedAt, scheduledEnd));
  return { startAt, endAt };
}

export function channelState(ch: ChannelRecord, now: number): ChannelState {
  const { startAt, endAt } = recordingWindow(ch);
  if (now < ch.createdAt + CHANNEL_ACTIVE_AFTER_MS) return 'PENDING';
  if (now < startAt) return 'ACTIVE';
  if (now < endAt) return 'RECORDING';
  if (now < endAt + CHANNEL_FINISHING_MS) return 'FINISHING_RECORDING';
  return 'INACTIVE';
}

/**
 * The channel as the service reports it at `now`, derived from the clock:
 * PENDING -> ACTIVE (1 s) -> RECORDING (2 s) -> FINISHING_RECORDING (after
 * recording_duration hours, or at a stop) -> INACTIVE 2 s later. Outputs are listed from
 * the start of the recording.
 */
export function channelView(ch: ChannelRecord, now: number) {
  const activeAt = ch.createdAt + CHANNEL_ACTIVE_AFTER_MS;
  const { startAt, endAt } = recordingWindow(ch);
  const inactiveAt = endAt + CHANNEL_FINISHING_MS;
  const state = channelState(ch, now);
  const lastChange =
    state === 'PENDING'
      ? ch.createdAt
      : state === 'ACTIVE'
        ? activeAt
        : state === 'RECORDING'
          ? startAt
          : state === 'FINISHING_RECORDING'
            ? endAt
            : inactiveAt;
  const base = `${OUTPUT_BUCKET}/${ch.spaceId}/${ch.id}/${ch.recordingId}`;
  const recording =
    now < startAt
      ? null
      : {
          id: ch.recordingId,
          channel_id: ch.id,
          started_at: isoTime(startAt),
          ended_at: now >= endAt ? isoTime(endAt) : null,
          // the output locations are known once recording starts (files grow while recording),
          // so a follow-up job can be submitted at the end of a window without waiting for INACTIVE
          outputs:
            now >= startAt
              ? [
                  { file_name: `${ch.recordingId}.mxf`, location_url: `${base}.mxf`, format: 'mxf' },
                  { file_name: `${ch.recordingId}_proxy.mp4`, location_url: `${base}_proxy.mp4`, format: 'mp4' },
                ]
              : [],
        };
  return {
    id: ch.id,
    name: ch.name,
    description: ch.description,
    source_id: ch.sourceId,
    continuous_recording: ch.continuousRecording,
    expected_properties: ch.expectedProperties,
    pinned: false,
    activated_at: now >= activeAt ? isoTime(activeAt) : null,
    auto_shutdown: { enabled: false, no_recording_timeout: 0, no_stream_timeout: 0 },
    recording_duration: ch.recordingDurationHours,
    recording,
    recording_settings: { engine_version: 'media-spaces-sim/1', settings: '{}' },
    recording_trigger: { recording_trigger: true },
    region: ch.region,
    errors: [] as string[],
    tags: ch.tags,
    created_at: isoTime(ch.createdAt),
    updated_at: isoTime(lastChange),
    state,
  };
}
