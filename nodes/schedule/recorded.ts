import { channelWithId } from '../../lib/channel-ref';
import type { StartFailure } from '../../lib/schedule';
import type { Channel } from '../../lib/schedule/slot-lives';

/** What is known at a slot's end about whether it recorded anything. */
export interface RecordingFacts {
  /** the last channel the slot had, and the ones an interruption replaced, in order */
  channel?: unknown;
  earlier?: readonly unknown[];
  /** create channel gave the start up (tried until the window's end) */
  startFailure?: StartFailure;
  /** create channel reported on this slot's start here */
  heard: boolean;
  /** the flow routes channels back: then a slot without one recorded nothing */
  routesChannels: boolean;
  /** with coordination: whether any instance started the slot, and the start failure Redis holds */
  coordinated?: { started: boolean; failed?: string };
}

export type Verdict =
  | { kind: 'recorded'; segments: Channel[] }
  | { kind: 'missed'; why: 'start_failed' | 'not_started'; reason: string }
  /** nothing says whether this flow records (its start output may go elsewhere): the end goes as it is */
  | { kind: 'unknown' };

/**
 * Whether a slot recorded anything, decided here only, with or without coordination: any channel with an id
 * (the last, or one an interruption replaced) is a recording; else the start failure (create channel's, or
 * the one Redis holds), else a flow that routes channels back (or that heard of the start) recorded nothing.
 */
export function recordedVerdict(f: RecordingFacts): Verdict {
  const segments = [...(f.earlier ?? []), f.channel].flatMap((c) => channelWithId(c) ?? []);
  if (segments.length > 0) return { kind: 'recorded', segments };
  if (f.coordinated?.failed) return { kind: 'missed', why: 'start_failed', reason: f.coordinated.failed };
  if (f.coordinated && !f.coordinated.started) {
    return {
      kind: 'missed',
      why: 'not_started',
      reason: 'no instance started this window (no channel, no start in Redis)',
    };
  }
  if (f.startFailure) {
    return {
      kind: 'missed',
      why: 'start_failed',
      reason: `the channel could not be created (${f.startFailure.message}; ${f.startFailure.attempts} attempts)`,
    };
  }
  if (f.heard || f.routesChannels)
    return { kind: 'missed', why: 'not_started', reason: 'no channel came back for this window' };
  return { kind: 'unknown' };
}
