import { type Clock, systemClock } from '../../lib/clock';
import { TERMINAL_JOB_STATES } from '../../lib/rules';
import {
  type ActionName,
  type ActivitySignal,
  type ActivitySnapshot,
  type FeedReloadResult,
  FINAL_STAGES,
  type JobReport,
  type JobView,
  type ScheduleControl,
  type ScheduleRegistration,
  type SlotReport,
  type SlotView,
  type ZoneDay,
} from './activity-types';
import {
  ACTIVITY_FORMAT,
  HISTORY_MS,
  Looks,
  packPlanned,
  packReported,
  packWindows,
  type WireSnapshot,
} from './activity-wire';
import { ChangeSignal, SIGNAL_INTERVAL_MS } from './change-signal';
import { ACTION_METHODS, scheduleHead } from './schedule-head';
import { plannedSlots } from './upcoming';
import { zoneDays } from './zone-days';

/** How far back the timeline shows outcomes, and how long finished jobs stay listed. */
export { HISTORY_MS };

const HOUR_MS = 3_600_000;
/** How far ahead the timeline can show (its longest view). */
const AHEAD_MS = 7 * 24 * HOUR_MS;
/** Bounds on what is kept, whatever the nodes report. */
const MAX_HISTORY_PER_SCHEDULE = 500;
const MAX_JOBS = 5000;
/** Ended jobs kept for the tab's "finished" list (the newest; older ones are dropped). */
export const MAX_ENDED_JOBS = 200;

/** An action the tab asked for that cannot be done; `status` is the HTTP answer. */
export class ActivityActionError extends Error {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** A followed job as its node holds it: what the tab shows is built from this when the tab asks. */
interface LiveJob {
  readonly jobId: string;
  readonly workflowId: string;
  readonly name?: string;
  /** undefined until the first read, when the input did not tell */
  readonly state?: string;
  readonly progress?: number;
}

/** What the activity route sends: the schedules (with their slots), the jobs, or both. */
export type WirePart = 'all' | 'schedules' | 'jobs';

/** The jobs a node follows now: read each time the tab fetches the state. */
export type LiveJobs = () => Iterable<LiveJob>;

interface ScheduleEntry {
  registration: ScheduleRegistration;
  control: ScheduleControl;
  /** planned slots of the current hour's range; recomputed when the hour or the windows change */
  planned?: { hour: number; slots: SlotView[] };
}

/**
 * The runtime's record of what the sidebar shows: the deployed schedules
 * (with their actions), the slots they reported, and the jobs being
 * followed. Every change marks the part it touches; the editors hear of it
 * through a throttled, data-free comms signal and fetch the state through
 * the read-guarded admin endpoint.
 */
export class ActivityFeed {
  private readonly schedules = new Map<string, ScheduleEntry>();
  /** schedule node id -> "windowId@start" -> slot; kept across redeploys (same node id) */
  private readonly reported = new Map<string, Map<string, SlotView>>();
  /** "nodeId/jobId" -> job: the jobs reported (ended ones, and any reported through reportJob) */
  private readonly jobs = new Map<string, JobView>();
  /**
   * node id -> the jobs it follows now. A follow-job node following
   * thousands of jobs keeps one record of each (its follower's); the view
   * of them is built when the tab fetches it, not kept as a second copy.
   */
  private readonly live = new Map<string, LiveJobs>();
  private readonly signal: ChangeSignal;
  private readonly terminal = new Set<string>(TERMINAL_JOB_STATES);

  constructor(
    publish: (signal: ActivitySignal) => void,
    private readonly clock: Clock = systemClock,
    intervalMs = SIGNAL_INTERVAL_MS,
  ) {
    this.signal = new ChangeSignal(publish, clock, intervalMs);
  }

  /** Revision counters of what was last changed. */
  get revision(): ActivitySignal {
    return this.signal.current;
  }

  /** How many comms publishes were made (for measurements). */
  get publishes(): number {
    return this.signal.published;
  }

  /** A schedule node started (or was redeployed): it replaces an earlier registration of the same node id. */
  registerSchedule(registration: ScheduleRegistration, control: ScheduleControl = {}): void {
    this.schedules.set(registration.nodeId, { registration: copyRegistration(registration), control });
    this.signal.mark('schedules');
  }

  /** Name, flow, paused state or windows of a registered schedule changed. Unknown ids are ignored. */
  updateSchedule(nodeId: string, patch: Partial<Omit<ScheduleRegistration, 'nodeId'>>): void {
    const entry = this.schedules.get(nodeId);
    if (!entry) return;
    entry.registration = copyRegistration({ ...entry.registration, ...patch, nodeId });
    if (patch.windows || patch.planRevision !== undefined) entry.planned = undefined;
    this.signal.mark('schedules');
  }

  /** A slot of a schedule started, changed channel state, or ended (with `outcome`). */
  reportSlot(nodeId: string, slot: SlotReport): void {
    let slots = this.reported.get(nodeId);
    if (!slots) {
      slots = new Map();
      this.reported.set(nodeId, slots);
    }
    const key = `${slot.windowId}@${slot.start}`;
    // a later report of the slot keeps the follow-up job a follow-job node told of
    const job = slot.outcome?.job ?? slots.get(key)?.outcome?.job;
    const view: SlotView = {
      ...(slot.slotKey ? { slotKey: slot.slotKey } : {}),
      windowId: slot.windowId,
      start: slot.start,
      end: slot.end,
      phase: slot.outcome || (slot.life && FINAL_STAGES.includes(slot.life.stage)) ? 'past' : 'active',
      ...(slot.channel ? { channel: { ...slot.channel } } : {}),
      ...(slot.life ? { life: { ...slot.life } } : {}),
      ...(typeof slot.title === 'string' ? { title: slot.title } : {}),
      ...(slot.outcome ? { outcome: { ...slot.outcome, ...(job ? { job: { ...job } } : {}) } } : {}),
    };
    slots.delete(key);
    slots.set(key, view);
    while (slots.size > MAX_HISTORY_PER_SCHEDULE) slots.delete(slots.keys().next().value as string);
    // the tab's range starts HISTORY_MS back: a row ended before it is never shown again, and 40 slots a
    // day for 50 schedules kept 2,000 such rows more each day until the bound (bench/day-at-scale.mjs)
    const shownFrom = this.clock.now() - HISTORY_MS;
    for (const [oldKey, row] of slots) {
      if (row.end >= shownFrom) break;
      slots.delete(oldKey);
    }
    this.signal.mark('schedules');
  }

  /**
   * The follow-up job of a slot ended (a follow-job node followed it): the slot's outcome shows it. A slot
   * no schedule reported (or one reported without its key) is left as it is.
   */
  slotJob(slotKey: string, job: { id: string; state: string }): void {
    for (const slots of this.reported.values()) {
      for (const view of slots.values()) {
        if (view.slotKey !== slotKey) continue;
        view.outcome = { channel: view.outcome?.channel ?? 'created', ...view.outcome, job: { ...job } };
        this.signal.mark('schedules');
        return;
      }
    }
  }

  /** A followed job's state or progress changed (or it is reported for the first time). */
  reportJob(report: JobReport): void {
    const key = `${report.nodeId}/${report.jobId}`;
    const progress =
      typeof report.progress === 'number' && Number.isFinite(report.progress) ? report.progress : undefined;
    this.jobs.delete(key);
    this.jobs.set(key, {
      ...report,
      progress: progress === undefined ? undefined : Math.min(100, Math.max(0, progress)),
      updatedAt: this.clock.now(),
      terminal: this.terminal.has(report.state.toLowerCase()),
    });
    this.pruneJobs();
    if (this.jobs.get(key)?.terminal) this.pruneEnded();
    this.signal.mark('jobs');
  }

  /** A node's followed jobs are listed from `jobs` (the node calls jobsChanged when one changes). */
  followJobs(nodeId: string, jobs: LiveJobs): void {
    this.live.set(nodeId, jobs);
    this.signal.mark('jobs');
  }

  /** A job of a live list changed state or progress, or joined or left it. */
  jobsChanged(): void {
    this.signal.mark('jobs');
  }

  /** A job followed again: an earlier report of it (it ended before) no longer shows. */
  forgetJob(nodeId: string, jobId: string): void {
    if (this.jobs.delete(`${nodeId}/${jobId}`)) this.signal.mark('jobs');
  }

  /**
   * A node closed: its schedule and the jobs it was still following go.
   * Finished jobs and reported slots stay (a redeployed node keeps its history).
   */
  unregister(nodeId: string): void {
    const hadSchedule = this.schedules.delete(nodeId);
    let hadJobs = this.live.delete(nodeId);
    for (const [key, job] of this.jobs) {
      if (job.nodeId === nodeId && !job.terminal) {
        this.jobs.delete(key);
        hadJobs = true;
      }
    }
    if (hadSchedule) this.signal.mark('schedules');
    if (hadJobs) this.signal.mark('jobs');
  }

  /** Calls a schedule's pause/resume/start/skip; 404 for an unknown schedule, 409 for one that lacks the action. */
  async act(nodeId: string, action: ActionName, windowId?: string): Promise<void> {
    const entry = this.schedules.get(nodeId);
    if (!entry) throw new ActivityActionError(404, `no deployed schedule has the id ${nodeId}`);
    const method = entry.control[ACTION_METHODS[action]];
    if (typeof method !== 'function') {
      throw new ActivityActionError(409, `the schedule "${entry.registration.name}" does not support ${action}`);
    }
    await method.call(entry.control, windowId);
    this.signal.mark('schedules');
  }

  /** "Reload feed" of a calendar or guide window: the schedule fetches it now and says what it read. */
  async reloadFeed(nodeId: string, windowId: string): Promise<FeedReloadResult> {
    const entry = this.schedules.get(nodeId);
    if (!entry) throw new ActivityActionError(404, `no deployed schedule has the id ${nodeId}`);
    if (typeof entry.control.reloadFeed !== 'function') {
      throw new ActivityActionError(409, `the schedule "${entry.registration.name}" does not reload feeds`);
    }
    // the schedule's own refusal is a plain error (a 500): the window is looked up here, as the schedule deployed it
    const window = entry.registration.windows.find((w) => w.id === windowId);
    if (!window) {
      throw new ActivityActionError(
        404,
        `the schedule "${entry.registration.name}" has no window ${JSON.stringify(windowId)}`,
      );
    }
    if (window.source !== 'ical' && window.source !== 'xmltv') {
      throw new ActivityActionError(
        409,
        `the window ${JSON.stringify(windowId)} of the schedule "${entry.registration.name}" reads no calendar or guide`,
      );
    }
    const result = await entry.control.reloadFeed(windowId);
    this.signal.mark('schedules');
    return result;
  }

  /**
   * The state the tab shows, as of now (the route sends it packed: `wire`); `part: 'jobs'` leaves the
   * schedules out (a job update needs no timeline).
   */
  snapshot(part: 'all' | 'jobs' = 'all'): ActivitySnapshot {
    const now = this.clock.now();
    const range = { from: now - HISTORY_MS, to: now + AHEAD_MS };
    const jobs = this.jobViews(range.from, now);
    if (part === 'jobs') return { now, signal: this.revision, range, schedules: [], jobs, days: [] };
    const schedules = [...this.schedules.values()].map((entry) => {
      const { reported, planned } = this.slotsOf(entry, now, range.from, range.to);
      // a start no report covers (not yet, or never: paused, skipped, not wired) is not a recording
      const due = planned.map((slot) => (slot.start <= now && !slot.band ? { ...slot, phase: 'due' as const } : slot));
      return {
        ...scheduleHead(entry.registration, entry.control),
        slots: [...reported, ...due].sort((a, b) => a.start - b.start),
      };
    });
    return { now, signal: this.revision, range, schedules, jobs, days: this.daysOf(range) };
  }

  /**
   * What the activity route sends: the state packed (activity-wire.ts), planned starts only `aheadMs`
   * ahead (the tab's view), every time counted from the hour. It is the same answer all the hour until
   * something changes, so `etag` names it without building it.
   */
  wire(part: WirePart, aheadMs = AHEAD_MS): WireSnapshot {
    const now = this.clock.now();
    const hour = Math.floor(now / HOUR_MS) * HOUR_MS;
    const range = { from: hour - HISTORY_MS, to: hour + HOUR_MS + clampAhead(aheadMs) };
    const base = range.from;
    const looks = new Looks();
    const jobs = part === 'schedules' ? [] : this.jobViews(range.from, now);
    const answer = { format: ACTIVITY_FORMAT, now, signal: this.revision, range, base, jobs } as const;
    if (part === 'jobs') return { ...answer, looks: [], schedules: [], days: [] };
    const schedules = [...this.schedules.values()].map((entry) => {
      const { reported, planned } = this.slotsOf(entry, hour, range.from, range.to);
      const head = scheduleHead(entry.registration, entry.control);
      const windowIds = head.windows.map((w) => w.id);
      const durations = new Map(head.windows.map((w) => [w.id, w.duration]));
      return {
        ...head,
        windows: packWindows(head.windows),
        planned: packPlanned(planned, base, durations),
        reported: packReported(reported, windowIds, base, looks),
      };
    });
    return { ...answer, looks: looks.list, schedules, days: this.daysOf(range) };
  }

  /**
   * Names the answer `wire(part, aheadMs)` gives now: it changes with the part's revision, the hour and the
   * range (the schedules' answer stays the same however often the jobs move).
   */
  etag(part: WirePart, aheadMs = AHEAD_MS): string {
    const signal = this.revision;
    const rev = part === 'schedules' ? signal.schedulesRev : part === 'jobs' ? signal.jobsRev : signal.rev;
    const hour = Math.floor(this.clock.now() / HOUR_MS);
    return `"activity-${ACTIVITY_FORMAT}-${part}-${signal.epoch}-${rev}-${hour}-${clampAhead(aheadMs)}"`;
  }

  close(): void {
    this.signal.close();
  }

  /** Publishes the current revision again (flows restarted: open editors refetch). */
  announce(): void {
    this.signal.repeat();
  }

  private liveView(nodeId: string, job: LiveJob, now: number): JobView {
    // as the node's input told of it until the first read
    const state = job.state ?? 'created';
    const progress = typeof job.progress === 'number' && Number.isFinite(job.progress) ? job.progress : undefined;
    return {
      nodeId,
      jobId: job.jobId,
      workflowId: job.workflowId,
      ...(job.name ? { name: job.name } : {}),
      state,
      progress: progress === undefined ? undefined : Math.min(100, Math.max(0, progress)),
      // followed now: the node reads it every interval
      updatedAt: now,
      terminal: this.terminal.has(state.toLowerCase()),
    };
  }

  /**
   * A schedule's reported slots ending from `from` on, and its planned ones overlapping [plannedFrom, to)
   * that no report covers. The plan is kept for the hour: from the hour's start to a week and an hour on.
   */
  private slotsOf(
    entry: ScheduleEntry,
    plannedFrom: number,
    from: number,
    to: number,
  ): { reported: SlotView[]; planned: SlotView[] } {
    const hour = Math.floor(plannedFrom / HOUR_MS);
    if (entry.planned?.hour !== hour) {
      const start = hour * HOUR_MS;
      const slots = plannedSlots(
        entry.registration.windows,
        entry.control.plan?.bind(entry.control),
        start,
        start + HOUR_MS + AHEAD_MS,
      );
      entry.planned = { hour, slots };
    }
    const reportedMap = this.reported.get(entry.registration.nodeId) ?? new Map<string, SlotView>();
    // a reported slot carries its programme's title (the schedule reports it with the slot)
    const reported = [...reportedMap.values()].filter((slot) => slot.end >= from);
    const planned = entry.planned.slots.filter(
      (slot) =>
        slot.end > plannedFrom && slot.start < to && (slot.band || !reportedMap.has(`${slot.windowId}@${slot.start}`)),
    );
    return { reported, planned };
  }

  private jobViews(from: number, now: number): JobView[] {
    const jobs = [...this.jobs.values()].filter((j) => !j.terminal || j.updatedAt >= from);
    for (const [nodeId, list] of this.live) for (const job of list()) jobs.push(this.liveView(nodeId, job, now));
    return jobs;
  }

  private daysOf(range: { from: number; to: number }): ZoneDay[] {
    const zones = new Set<string>();
    for (const entry of this.schedules.values()) for (const w of entry.registration.windows) zones.add(w.timezone);
    return [...zones].flatMap((zone) => {
      try {
        return zoneDays(zone, range.from, range.to);
      } catch {
        return [];
      }
    });
  }

  /** Drops the oldest ended jobs beyond MAX_ENDED_JOBS (the map is in order of last report). */
  private pruneEnded(): void {
    let ended = 0;
    for (const job of this.jobs.values()) if (job.terminal) ended += 1;
    for (const [key, job] of this.jobs) {
      if (ended <= MAX_ENDED_JOBS) return;
      if (!job.terminal) continue;
      this.jobs.delete(key);
      ended -= 1;
    }
  }

  private pruneJobs(): void {
    if (this.jobs.size <= MAX_JOBS) return;
    for (const [key, job] of this.jobs) {
      if (this.jobs.size <= MAX_JOBS) return;
      if (job.terminal) this.jobs.delete(key);
    }
  }
}

/** The tab's views ask for 6 hours to a week ahead; anything else is brought within a week. */
function clampAhead(aheadMs: number): number {
  return Number.isFinite(aheadMs)
    ? Math.min(AHEAD_MS, Math.max(HOUR_MS, Math.round(aheadMs / HOUR_MS) * HOUR_MS))
    : AHEAD_MS;
}

function copyRegistration(r: ScheduleRegistration): ScheduleRegistration {
  return { ...r, windows: r.windows.map((w) => ({ ...w })) };
}
