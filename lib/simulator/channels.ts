import type { ChannelState } from '../schemas';
import type { ChannelRecord } from './state';
import { isoTime } from './timespan';
import { CHANNEL_ACTIVE_AFTER_MS } from './warm-up';

export { CHANNEL_RECORDING_AFTER_MS } from './warm-up';

/** When the channel begins to record (epoch ms, the simulator's clock). */
export function recordingStartOf(ch: ChannelRecord): number {
  return ch.createdAt + ch.recordingAfterMs;
}
/** How long FINISHING_RECORDING lasts (after a stop) before the channel is INACTIVE with its outputs. */
export const CHANNEL_FINISHING_MS = 2000;
const HOUR_MS = 3_600_000;

const OUTPUT_BUCKET = 's3://media-spaces-sim';

/**
 * When the recording starts and ends. Nothing in the description ends a recording by
 * itself: `recording_duration` is the "hours of available recorded window when
 * continuous_recording is true", not a length. So every recording runs until the stop
 * extension ends it (`endAt` is Infinity until then).
 */
function recordingWindow(ch: ChannelRecord): { startAt: number; endAt: number } {
  const startAt = recordingStartOf(ch);
  const stoppedAt = ch.stoppedAt ?? Number.POSITIVE_INFINITY;
  const endAt = Math.min(stoppedAt, ch.failure?.at ?? Number.POSITIVE_INFINITY);
  return { startAt, endAt: Math.max(startAt, endAt) };
}

/** True once an injected `error` failure, not a stop, ended the recording. */
function failedInError(ch: ChannelRecord, now: number): boolean {
  const f = ch.failure;
  return f !== null && f.outcome === 'error' && f.at <= now && (ch.stoppedAt === null || f.at < ch.stoppedAt);
}

export function channelState(ch: ChannelRecord, now: number): ChannelState {
  const { startAt, endAt } = recordingWindow(ch);
  if (now < ch.createdAt + CHANNEL_ACTIVE_AFTER_MS) return 'PENDING';
  if (now < startAt) return 'ACTIVE';
  if (now < endAt) return 'RECORDING';
  if (failedInError(ch, now)) return 'ERROR';
  if (now < endAt + CHANNEL_FINISHING_MS) return 'FINISHING_RECORDING';
  return 'INACTIVE';
}

interface Output {
  file_name: string;
  location_url: string;
  format: string;
}

/**
 * What the recording holds at `now`. A continuous recording is written in one-hour
 * segments and keeps only its window: the segments that reach into the last
 * `recording_duration` hours (the one being written included); older ones fall away while
 * the recording goes on. Any other recording is one file and its proxy, whole.
 */
export function recordingOutputs(ch: ChannelRecord, now: number): Output[] {
  const { startAt, endAt } = recordingWindow(ch);
  const base = `${OUTPUT_BUCKET}/${ch.spaceId}/${ch.id}/${ch.recordingId}`;
  if (!ch.continuousRecording) {
    return [
      { file_name: `${ch.recordingId}.mxf`, location_url: `${base}.mxf`, format: 'mxf' },
      { file_name: `${ch.recordingId}_proxy.mp4`, location_url: `${base}_proxy.mp4`, format: 'mp4' },
    ];
  }
  const last = Math.min(now, endAt);
  const windowStart = last - continuousWindowHours(ch) * HOUR_MS;
  // the segment holding `last` (a recording stopped on an hour boundary ends with the previous one)
  const newest = Math.max(0, Math.ceil((last - startAt) / HOUR_MS) - 1);
  const oldest = Math.max(0, Math.floor((windowStart - startAt) / HOUR_MS));
  const outputs: Output[] = [];
  for (let i = oldest; i <= newest; i++) {
    const name = `${ch.recordingId}_${String(i + 1).padStart(5, '0')}.mxf`;
    outputs.push({ file_name: name, location_url: `${base}/${name}`, format: 'mxf' });
  }
  return outputs;
}

/** The window of a continuous recording: as requested, 1 hour when the request gave none. */
function continuousWindowHours(ch: ChannelRecord): number {
  return ch.recordingDurationHours ?? DEFAULT_WINDOW_HOURS;
}
const DEFAULT_WINDOW_HOURS = 1;

/**
 * The channel as the service reports it at `now`, derived from the clock:
 * PENDING -> ACTIVE (1 s) -> RECORDING (2 s, or the warm-up set through the admin API) -> FINISHING_RECORDING (at a stop)
 * -> INACTIVE 2 s later; or RECORDING -> ERROR for good when an injected failure cuts it. Fields with no value yet (activated_at, recording,
 * recording.ended_at, and source_id, expected_properties, recording_duration when the
 * request gave none) are left out, not sent as null: the description declares none of
 * them nullable.
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
          : state === 'FINISHING_RECORDING' || state === 'ERROR'
            ? endAt
            : inactiveAt;
  const recordingDuration = ch.continuousRecording ? continuousWindowHours(ch) : ch.recordingDurationHours;
  return {
    id: ch.id,
    name: ch.name,
    description: ch.description,
    ...(ch.sourceId === null ? {} : { source_id: ch.sourceId }),
    continuous_recording: ch.continuousRecording,
    ...(ch.expectedProperties === null ? {} : { expected_properties: ch.expectedProperties }),
    pinned: false,
    ...(now >= activeAt ? { activated_at: isoTime(activeAt) } : {}),
    auto_shutdown: { enabled: false, no_recording_timeout: 0, no_stream_timeout: 0 },
    ...(recordingDuration === null ? {} : { recording_duration: recordingDuration }),
    ...(now < startAt
      ? {}
      : {
          recording: {
            id: ch.recordingId,
            channel_id: ch.id,
            started_at: isoTime(startAt),
            ...(now >= endAt ? { ended_at: isoTime(endAt) } : {}),
            // known from the start of the recording (files grow while recording), so a follow-up
            // job can be submitted at the end of a window without waiting for INACTIVE
            outputs: recordingOutputs(ch, now),
          },
        }),
    recording_settings: { engine_version: 'media-spaces-sim/1', settings: '{}' },
    recording_trigger: { recording_trigger: true },
    region: ch.region,
    errors: state === 'ERROR' && ch.failure ? [ch.failure.message] : ([] as string[]),
    tags: ch.tags,
    created_at: isoTime(ch.createdAt),
    updated_at: isoTime(lastChange),
    state,
  };
}
