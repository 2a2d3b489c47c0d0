import diagnostics_channel from 'node:diagnostics_channel';
export type SlotPhase =
  | 'planned'
  | 'starting'
  | 'recording'
  | 'interrupted'
  | 'stopping'
  | 'finishing'
  | 'finished'
  | 'partial'
  | 'missed'
  | 'skipped'
  | 'cancelled';
export interface SlotTransition {
  slot: string; // slot key: schedule + window + occurrence id
  schedule: { id: string; name: string }; // node id and name
  window: { id: string; zone: string };
  occurrence: { id: string; title?: string; episode?: string; start: string; end: string }; // unpadded ISO
  scheduled: { start: string; end: string }; // padded ISO
  from: SlotPhase;
  to: SlotPhase;
  at: string; // ISO
  why?: string; // reason for missed/partial/skipped/cancelled/interrupted/starting failures
  attempts?: number;
  channel?: { id: string; outputs?: unknown[] }; // the segment concerned (recording, interrupted, finished)
  lateBy?: number; // seconds late, on entering recording for the first time: from the padded start to startedAt
  startedAt?: string; // ISO, on entering recording: when the segment began to record by the service's clock
  // (its recording.started_at, else the first read in RECORDING; the channel's creation when it cannot be read)
  endedAt?: string; // ISO, on finishing and the final phase: when the recording ended by the service's clock
  clockOffset?: number; // with startedAt or endedAt: the service's clock minus this host's, seconds, when they
  // differ by surely more than 2 s (lib/service-clock): the schedule's times are this host's, the service's its own
  overrun?: { by: number; why?: string }; // on the final phase: the recording ended `by` seconds past the
  // scheduled end, more than OVERRUN_AFTER_S (lib/schedule/slot-outcome), and why
  gaps?: { from: string; to: string; why: string }[];
  coordinated?: boolean; // true when the slot runs under Redis coordination
  rerecordOf?: string; // the slot records again, at a later airing, what this earlier slot failed to (rerecord)
  withdrawn?: boolean; // planned only: the window has no next start any more (its guide ran out): not this one
  revived?: boolean; // planned -> starting only: a conflict's loser, skipped at its start, started late once a
  // channel freed up (a winner cancelled, or its recording ended early): a new life of the slot after its skip
}
export interface SlotJobOutcome {
  slot: string;
  job: { id: string; state: string; elapsed?: number; workflowId?: string };
}
export const slotTransitions = diagnostics_channel.channel('media-spaces:slot');
export const slotJobs = diagnostics_channel.channel('media-spaces:slot-job');

/**
 * The windows a deployed schedule has, told when it starts and whenever its
 * windows change: the metrics export each window's series at 0 from then on,
 * whether or not the window has a next start yet, so that Prometheus sees a
 * first miss as a rise from 0.
 */
export interface ScheduleWindows {
  schedule: { id: string; name: string };
  windows: string[];
}
export const scheduleWindows = diagnostics_channel.channel('media-spaces:schedule-windows');
