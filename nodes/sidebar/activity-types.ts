/**
 * What the Media Spaces sidebar shows, as the runtime feed holds it and the
 * editor receives it. Types and constant lists only: the editor bundle imports them too.
 * Instants are epoch milliseconds.
 */
import type { FeedReloadResult } from '../../lib/schedule/feed-reload';

/** One window of a schedule, as lib/schedule's ScheduleWindow has it (a schedule can pass its windows as they are). */
export interface WindowPlan {
  id: string;
  name: string;
  /** five-field cron expression (or nickname) of the window's starts */
  cron: string;
  /** IANA zone the cron reads in */
  timezone: string;
  /** seconds */
  duration: number;
  /** false: the window never starts (default true) */
  enabled?: boolean;
  /** where the starts come from: cron (default) or listed (a calendar, a guide, messages) */
  source?: 'cron' | 'ical' | 'xmltv' | 'messages';
}

/** A deployed schedule node, as it registers itself. */
export interface ScheduleRegistration {
  /** the schedule node's id (what RED.view.reveal takes) */
  nodeId: string;
  /** the node's label */
  name: string;
  /** id of the flow (tab) the node is on */
  z?: string;
  paused: boolean;
  windows: WindowPlan[];
  /** changes when the schedule's plan changes (a feed refreshed): the timeline plans anew */
  planRevision?: number;
}

/** What the tab's buttons call; a schedule gives the ones it supports. */
export interface ScheduleControl {
  pause?(): void | Promise<void>;
  resume?(): void | Promise<void>;
  /** start a window now: the named window (id), else the next one due */
  startNow?(windowId?: string): void | Promise<void>;
  /** skip the next start: of the named window (id), else the next one due */
  skipNext?(windowId?: string): void | Promise<void>;
  /**
   * The schedule's planned slots overlapping [from, to) (its scheduler's plan: cron, calendar, guide or
   * messages), at most `perWindow` per window, the rest as one `band`. Without it, windows plan from their cron.
   */
  plan?(from: number, to: number, perWindow: number): PlannedSlotView[];
  /** fetch a calendar or guide window's feed now; what the fetch read */
  reloadFeed?(windowId: string): Promise<FeedReloadResult>;
}

export type { FeedReloadResult } from '../../lib/schedule/feed-reload';

/** A planned slot as a schedule's plan gives it. */
export interface PlannedSlotView {
  windowId: string;
  start: number;
  end: number;
  /** the programme's title (calendar, guide) */
  title?: string;
  /** one channel too many for the space's max_channels when it starts */
  conflict?: true;
  /** a later airing booked to record a failed slot again (a window's rerecord) */
  rerecord?: true;
  band?: true;
}

export type ActionName = 'pause' | 'resume' | 'start' | 'skip';

/** How a slot (one start of a window) ended. */
interface SlotOutcome {
  channel: 'created' | 'failed';
  /** one sentence: why the channel failed */
  reason?: string;
  /**
   * the follow-up job submitted for the slot, and its state: set when a follow-job node reports it (slotJob);
   * the activity route sends its state only (the tab shows no id)
   */
  job?: { id?: string; state: string };
}

import type { SlotLife } from '../../lib/schedule/slot-stage';

export { FINAL_STAGES, type SlotLife, type SlotStage, STAGE_OF_PHASE } from '../../lib/schedule/slot-stage';

/**
 * One start of a window, as the schedule reports it: while it runs
 * (no `outcome`), and once it is over (`outcome` set). Reporting the same
 * window and start again updates it.
 */
export interface SlotReport {
  /** the slot's key: what a follow-job node names when it reports the slot's follow-up job */
  slotKey?: string;
  windowId: string;
  /** the slot's start and end (epoch ms) */
  start: number;
  end: number;
  /** the live-capture channel: its state as the service says it ('creating', 'running', ...), and id once known */
  channel?: { state: string; id?: string };
  /** where the slot is in its life */
  life?: SlotLife;
  /** set when the slot is over (or failed to start) */
  outcome?: SlotOutcome;
  /** the programme's title, when the window reads a calendar or guide */
  title?: string;
}

/** A job a follow-job node follows; reported on every change of state or progress. */
export interface JobReport {
  /** the following node's id */
  nodeId: string;
  jobId: string;
  workflowId: string;
  /** the job's name, if it has one */
  name?: string;
  /** the job's state as the service says it ('queued', 'running', 'succeeded', 'failed', 'stopped') */
  state: string;
  /** 0-100, the job's `progress` */
  progress?: number;
  /** one sentence: why the job failed, or why following it stopped */
  reason?: string;
}

// ------------------------------------------------------------ what the editor receives

/**
 * upcoming: planned, not started; due: planned, its start passed and no report
 * covers it (a schedule reports its starts at once, so this is brief, or the
 * schedule does not report); active: reported, not over; past: over.
 */
type RowPhase = 'upcoming' | 'due' | 'active' | 'past';

export interface SlotView {
  slotKey?: string;
  windowId: string;
  start: number;
  end: number;
  phase: RowPhase;
  channel?: { state: string; id?: string };
  life?: SlotLife;
  outcome?: SlotOutcome;
  /** the programme's title, when the window reads a calendar or guide */
  title?: string;
  /** loses a conflict over the space's max_channels: not recorded unless a channel frees up (shown before it happens) */
  conflict?: true;
  /** a later airing booked to record a failed slot again (a window's rerecord) */
  rerecord?: true;
  /**
   * planned starts too dense to list one by one (an every-minute window over
   * a week): the window keeps starting as its cron says from `start` to `end`
   */
  band?: true;
}

export interface ScheduleView {
  nodeId: string;
  name: string;
  z?: string;
  paused: boolean;
  actions: ActionName[];
  windows: {
    id: string;
    name: string;
    timezone: string;
    duration: number;
    enabled: boolean;
    /** where its starts come from, when not cron: a calendar or guide window can be reloaded from the tab */
    source?: 'ical' | 'xmltv' | 'messages';
  }[];
  /** upcoming starts in the range, active slots and the past 24 hours' slots, by start */
  slots: SlotView[];
}

export interface JobView extends JobReport {
  /** when the runtime last heard of the job */
  updatedAt: number;
  terminal: boolean;
}

/** A calendar day in a zone: 23 or 25 hours long on daylight-saving days. */
export interface ZoneDay {
  timezone: string;
  /** the local date, YYYY-MM-DD */
  date: string;
  start: number;
  end: number;
  hours: number;
}

export interface ActivitySnapshot {
  now: number;
  /** the signal this snapshot is at (its fields as published) */
  signal: ActivitySignal;
  range: { from: number; to: number };
  schedules: ScheduleView[];
  jobs: JobView[];
  /** the days of every zone a window uses, across the range */
  days: ZoneDay[];
}

/** The comms message: no data, only which parts changed since (so a client without read permission learns nothing). */
export interface ActivitySignal {
  /** when the feed was created: a new value means the runtime restarted (revisions start again) */
  epoch: number;
  rev: number;
  schedulesRev: number;
  jobsRev: number;
}

export const ACTIVITY_TOPIC = 'media-spaces/activity';
