import { coordinationFailures } from '../coordination/failure-events';
import { type FeedRefreshEvent, feedEvents } from '../feed-events';
import { type RequestEvent, requestEvents } from '../request-events';
import {
  type ScheduleWindows,
  type SlotJobOutcome,
  type SlotPhase,
  type SlotTransition,
  scheduleWindows,
  slotJobs,
  slotTransitions,
} from '../schedule/slot-events';
import { endLatenessSeconds, outcomeOf, SLOT_OUTCOMES } from '../schedule/slot-outcome';
import { type ServiceClockEvent, serviceClockEvents } from '../service-clock';
import { type Family, Histogram, type Sample } from './exposition';

const OUTCOMES = SLOT_OUTCOMES;
/** the service's terminal job states, exported at 0 before any job ends */
const JOB_STATES = ['succeeded', 'failed', 'stopped'];
export const LATENESS_BUCKETS = [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];
/** How far past its scheduled end a recording ended (seconds); an overrun is more than 5 (OVERRUN_AFTER_S). */
export const END_LATENESS_BUCKETS = [1, 2, 5, 10, 30, 60, 120, 300, 600];
export const JOB_DURATION_BUCKETS = [10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14_400];
/** The labels of every per-window series (some add one: outcome, state, schedule_name). */
const WINDOW_LABELS = ['schedule', 'window'];
/** Slots whose labels are remembered until their follow-up job reports (a bound, not a schedule's state). */
const SLOT_LABELS_KEPT = 4096;

/** What is counted per schedule and window. */
interface WindowSeries {
  schedule: string;
  window: string;
  name: string;
  nextStart?: number;
  lastRecordedEnd?: number;
  slots: Record<string, number>;
  lateness: Histogram;
  endLateness: Histogram;
  overruns: number;
  interruptions: number;
  recording: number;
  jobs: Record<string, number>;
  jobDuration: Histogram;
}

/**
 * The package's Prometheus metrics, counted from events only (slot
 * transitions, follow-up job outcomes, requests, coordination failures,
 * feed refreshes; all on node:diagnostics_channel), in plain objects, and
 * rendered as text when scraped. Labels are schedule and window (never a
 * slot or a job), operation and status class. One instance per process
 * (metrics()): a redeploy, a second plugin registration or a second config
 * node finds it, so nothing is registered twice.
 */
export class SlotMetrics {
  private readonly windows = new Map<string, WindowSeries>();
  private readonly slotLabels = new Map<string, string>();
  /** Slots heard of in this process and not ended yet, with the phase each is in. */
  private readonly inFlight = new Map<string, SlotPhase>();
  /**
   * Conflict losers skipped at their start, counted `skipped` only once their window has ended: until then a
   * freed channel may still start one (revived), and its outcome is the recording's (one slot, one outcome).
   */
  private readonly heldSkips = new Map<string, { series: WindowSeries; end: number }>();
  private readonly requests = new Map<string, { operation: string; statusClass: string; count: number }>();
  private coordinationFailureCount = 0;
  private readonly feeds = new Map<string, { failures: number; lastSuccess?: number }>();
  private subscribed = false;
  private readonly handlers = {
    slot: (m: unknown) => this.safely(() => this.transition(m as SlotTransition)),
    job: (m: unknown) => this.safely(() => this.jobOutcome(m as SlotJobOutcome)),
    request: (m: unknown) => this.safely(() => this.request(m as RequestEvent)),
    coordination: (_m: unknown) => {
      this.coordinationFailureCount++;
    },
    feed: (m: unknown) => this.safely(() => this.feed(m as FeedRefreshEvent)),
    windows: (m: unknown) => this.safely(() => this.knowWindows(m as ScheduleWindows)),
    clock: (m: unknown) => this.safely(() => this.serviceClock(m as ServiceClockEvent)),
  };
  /** per origin of the service: its clock minus this host's, seconds, as last settled */
  private readonly clockOffsets = new Map<string, number>();

  start(): void {
    if (this.subscribed) return;
    this.subscribed = true;
    slotTransitions.subscribe(this.handlers.slot);
    slotJobs.subscribe(this.handlers.job);
    requestEvents.subscribe(this.handlers.request);
    coordinationFailures.subscribe(this.handlers.coordination);
    feedEvents.subscribe(this.handlers.feed);
    scheduleWindows.subscribe(this.handlers.windows);
    serviceClockEvents.subscribe(this.handlers.clock);
  }

  stop(): void {
    if (!this.subscribed) return;
    this.subscribed = false;
    slotTransitions.unsubscribe(this.handlers.slot);
    slotJobs.unsubscribe(this.handlers.job);
    requestEvents.unsubscribe(this.handlers.request);
    coordinationFailures.unsubscribe(this.handlers.coordination);
    feedEvents.unsubscribe(this.handlers.feed);
    scheduleWindows.unsubscribe(this.handlers.windows);
    serviceClockEvents.unsubscribe(this.handlers.clock);
  }

  /** An event heard before this object subscribed (the lazy start in a host), by its channel's name. */
  handle(channel: string, message: unknown): void {
    if (channel === slotTransitions.name) this.handlers.slot(message);
    else if (channel === slotJobs.name) this.handlers.job(message);
    else if (channel === requestEvents.name) this.handlers.request(message);
    else if (channel === coordinationFailures.name) this.handlers.coordination(message);
    else if (channel === feedEvents.name) this.handlers.feed(message);
    else if (channel === scheduleWindows.name) this.handlers.windows(message);
    else if (channel === serviceClockEvents.name) this.handlers.clock(message);
  }

  private serviceClock(e: ServiceClockEvent): void {
    // a handful of origins per process (each server's one or two areas): bounded by the deployed servers
    if (typeof e.origin === 'string' && Number.isFinite(e.offsetMs)) this.clockOffsets.set(e.origin, e.offsetMs / 1000);
  }

  /** A window its schedule knows of: its series exist from now on, at 0. */
  knowWindow(schedule: { id: string; name?: string }, windowId: string): void {
    this.series(schedule.id, windowId, schedule.name);
  }

  /** A schedule's windows as it tells them (at its start and when they change): each window's series at 0. */
  private knowWindows(told: ScheduleWindows): void {
    if (!Array.isArray(told.windows)) return;
    for (const w of told.windows) if (typeof w === 'string') this.knowWindow(told.schedule, w);
  }

  /** The next start of a window (epoch ms), for a schedule that tells it rather than publishing planned transitions. */
  setNextStart(schedule: { id: string; name?: string }, windowId: string, startMs: number | undefined): void {
    this.series(schedule.id, windowId, schedule.name).nextStart = startMs;
  }

  /** Series for how many (schedule, window) pairs, and slots awaiting their job: for leak checks. */
  get size(): { windows: number; slots: number; requests: number; feeds: number } {
    return {
      windows: this.windows.size,
      slots: this.slotLabels.size,
      requests: this.requests.size,
      feeds: this.feeds.size,
    };
  }

  private series(schedule: string, window: string, name?: string): WindowSeries {
    const key = `${schedule}\u0000${window}`;
    let s = this.windows.get(key);
    if (!s) {
      s = {
        schedule,
        window,
        // a schedule node without a name is named by its id: schedule_name is never empty (an empty label is none)
        name: name || schedule,
        slots: Object.fromEntries(OUTCOMES.map((o) => [o, 0])),
        lateness: new Histogram(LATENESS_BUCKETS),
        endLateness: new Histogram(END_LATENESS_BUCKETS),
        overruns: 0,
        interruptions: 0,
        recording: 0,
        jobs: Object.fromEntries(JOB_STATES.map((o) => [o, 0])),
        jobDuration: new Histogram(JOB_DURATION_BUCKETS),
      };
      this.windows.set(key, s);
    } else if (name !== undefined) s.name = name || schedule;
    return s;
  }

  private transition(t: SlotTransition): void {
    const s = this.series(t.schedule.id, t.window.id, t.schedule.name);
    const outcome = outcomeOf(t);
    if (t.to === 'planned') {
      const start = Date.parse(t.scheduled.start);
      const now = Date.now();
      if (t.withdrawn) {
        if (s.nextStart === start || (s.nextStart !== undefined && s.nextStart < now)) s.nextStart = undefined;
      } else if (s.nextStart === undefined || s.nextStart < now || (start >= now && start < s.nextStart))
        s.nextStart = start;
    }
    if (t.revived) this.heldSkips.delete(t.slot);
    const was = this.inFlight.get(t.slot);
    if (t.to === 'recording' && was !== 'recording') s.recording++;
    // told once per slot: entering recording, or with the stop of a recording that began after the window's end
    if (typeof t.lateBy === 'number') s.lateness.observe(Math.max(0, t.lateBy));
    // only what this process counted: a slot restored after a restart was counted by the process before
    if (was === 'recording' && t.to !== 'recording') s.recording = Math.max(0, s.recording - 1);
    if (t.to === 'interrupted') s.interruptions++;
    if (!outcome) {
      if (t.to !== 'planned') this.track(t.slot, t.to);
      return;
    }
    this.inFlight.delete(t.slot);
    this.rememberSlot(t.slot, `${t.schedule.id}\u0000${t.window.id}`);
    if (outcome === 'skipped' && t.why?.startsWith('conflict:')) {
      this.holdSkip(t.slot, s, Date.parse(t.scheduled.end));
      return;
    }
    if (outcome === 'recorded' || outcome === 'overran' || outcome === 'partial') {
      const end = Date.parse(t.scheduled.end);
      if (Number.isFinite(end) && (s.lastRecordedEnd === undefined || end > s.lastRecordedEnd)) s.lastRecordedEnd = end;
      // an end with nothing of its slot heard before in this process is an end told again (the schedule
      // replays the ends of the last minutes after a restart): the slot was counted when it ended
      if (was === undefined) return;
      const ended = t.endedAt === undefined ? Number.NaN : Date.parse(t.endedAt);
      if (Number.isFinite(end) && Number.isFinite(ended)) s.endLateness.observe(endLatenessSeconds(end, ended));
      if (t.overrun) s.overruns++;
    }
    s.slots[outcome]++;
  }

  private holdSkip(slot: string, series: WindowSeries, end: number): void {
    this.heldSkips.delete(slot);
    this.heldSkips.set(slot, { series, end: Number.isFinite(end) ? end : 0 });
    // a bound: past it the oldest is counted now
    if (this.heldSkips.size > SLOT_LABELS_KEPT) {
      const [oldest, held] = this.heldSkips.entries().next().value as [string, { series: WindowSeries }];
      this.heldSkips.delete(oldest);
      held.series.slots.skipped++;
    }
  }

  /** The conflict losers whose window has ended without a channel: counted skipped now. */
  private settleSkips(now = Date.now()): void {
    for (const [slot, held] of this.heldSkips) {
      if (held.end > now) continue;
      this.heldSkips.delete(slot);
      held.series.slots.skipped++;
    }
  }

  private track(slot: string, phase: SlotPhase): void {
    this.inFlight.set(slot, phase);
    // slots another instance ended, or that a redeploy forgot, never end here: the oldest go first
    if (this.inFlight.size > SLOT_LABELS_KEPT) {
      const oldest = this.inFlight.keys().next().value;
      if (oldest !== undefined) this.inFlight.delete(oldest);
    }
  }

  /** The labels of an ended slot, for its follow-up job's outcome (which names the slot only). */
  private rememberSlot(slot: string, key: string): void {
    this.slotLabels.delete(slot);
    this.slotLabels.set(slot, key);
    if (this.slotLabels.size > SLOT_LABELS_KEPT) {
      const oldest = this.slotLabels.keys().next().value;
      if (oldest !== undefined) this.slotLabels.delete(oldest);
    }
  }

  private jobOutcome(o: SlotJobOutcome): void {
    const key = this.slotLabels.get(o.slot) ?? keyFromSlot(o.slot);
    if (key === undefined) return;
    this.slotLabels.delete(o.slot);
    const [schedule, window] = key.split('\u0000');
    const s = this.series(schedule, window);
    const state = String(o.job.state).toLowerCase();
    s.jobs[state] = (s.jobs[state] ?? 0) + 1;
    if (typeof o.job.elapsed === 'number') s.jobDuration.observe(o.job.elapsed);
  }

  private request(e: RequestEvent): void {
    const operation = operationLabel(e.operation);
    const statusClass =
      e.status !== undefined && e.error === undefined ? `${Math.floor(e.status / 100)}xx` : (e.error ?? 'error');
    const key = `${operation}\u0000${statusClass}`;
    const entry = this.requests.get(key);
    if (entry) entry.count++;
    else this.requests.set(key, { operation, statusClass, count: 1 });
  }

  private feed(e: FeedRefreshEvent): void {
    let f = this.feeds.get(e.feed);
    if (!f) {
      f = { failures: 0 };
      this.feeds.set(e.feed, f);
    }
    if (e.ok) f.lastSuccess = Math.max(f.lastSuccess ?? 0, e.at);
    else f.failures++;
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch {
      // an event of an unexpected shape: a publisher's subscriber must never throw back into it
    }
  }

  /**
   * Every series, as plain numbers: one entry per metric family, in the order a scrape lists them, with the
   * label names it has (also when it has no sample yet). The families are the same at every call; a new
   * series is one more entry here (and its count in WindowSeries). The metrics route hands them to
   * prom-client at each scrape (nodes/sidebar/metrics-registry.ts).
   */
  families(): Family[] {
    this.settleSkips();
    const windows = [...this.windows.values()];
    const W = WINDOW_LABELS;
    const labels = (s: WindowSeries) => ({ schedule: s.schedule, window: s.window });
    const per = (value: (s: WindowSeries) => number | undefined): Sample[] =>
      windows.flatMap((s) => {
        const v = value(s);
        return v === undefined ? [] : [{ labels: labels(s), value: v }];
      });
    const families: Family[] = [
      {
        name: 'media_spaces_schedule_info',
        labelNames: [...W, 'schedule_name'],
        help: 'A schedule node and window known to this instance, with the schedule name.',
        type: 'gauge',
        samples: windows.map((s) => ({ labels: { ...labels(s), schedule_name: s.name }, value: 1 })),
      },
      {
        name: 'media_spaces_slot_next_start_timestamp_seconds',
        labelNames: W,
        help: 'Scheduled (padded) start of the next slot of the window, Unix time.',
        type: 'gauge',
        // a start gone by with none after it (the guide ran out, or no withdrawal was heard) is no next start
        samples: per((s) => (s.nextStart === undefined || s.nextStart < Date.now() ? undefined : s.nextStart / 1000)),
      },
      {
        name: 'media_spaces_slot_last_recorded_end_timestamp_seconds',
        labelNames: W,
        help: 'Scheduled end of the last slot of the window that recorded (whole or partial), Unix time.',
        type: 'gauge',
        samples: per((s) => (s.lastRecordedEnd === undefined ? undefined : s.lastRecordedEnd / 1000)),
      },
      {
        name: 'media_spaces_slots_total',
        labelNames: [...W, 'outcome'],
        help: 'Slots that ended, by outcome (recorded, overran, partial, missed, skipped, cancelled).',
        type: 'counter',
        samples: windows.flatMap((s) =>
          OUTCOMES.map((outcome) => ({ labels: { ...labels(s), outcome }, value: s.slots[outcome] })),
        ),
      },
      {
        name: 'media_spaces_slot_start_lateness_seconds',
        labelNames: W,
        help: 'How late the recording of a slot started after its scheduled start, in seconds.',
        type: 'histogram',
        histograms: windows.map((s) => ({
          labels: labels(s),
          bounds: s.lateness.bounds,
          counts: s.lateness.counts,
          sum: s.lateness.sum,
        })),
      },
      {
        name: 'media_spaces_slot_end_lateness_seconds',
        labelNames: W,
        help: 'How far past its scheduled end the recording of a slot ended by the service, in seconds (0 when by it).',
        type: 'histogram',
        histograms: windows.map((s) => ({
          labels: labels(s),
          bounds: s.endLateness.bounds,
          counts: s.endLateness.counts,
          sum: s.endLateness.sum,
        })),
      },
      {
        name: 'media_spaces_slot_overruns_total',
        labelNames: W,
        help: 'Recordings that ended more than 5 s past their scheduled end (overran), partial ones included.',
        type: 'counter',
        samples: per((s) => s.overruns),
      },
      {
        name: 'media_spaces_recording_interruptions_total',
        labelNames: W,
        help: 'Recordings interrupted while a slot ran.',
        type: 'counter',
        samples: per((s) => s.interruptions),
      },
      {
        name: 'media_spaces_channels_recording',
        labelNames: W,
        help: 'Channels recording now.',
        type: 'gauge',
        samples: per((s) => s.recording),
      },
      {
        name: 'media_spaces_followup_jobs_total',
        labelNames: [...W, 'state'],
        help: 'Follow-up jobs of slots that ended, by final state.',
        type: 'counter',
        samples: windows.flatMap((s) =>
          Object.entries(s.jobs).map(([state, value]) => ({ labels: { ...labels(s), state }, value })),
        ),
      },
      {
        name: 'media_spaces_followup_job_duration_seconds',
        labelNames: W,
        help: 'Run time of follow-up jobs that ended, in seconds.',
        type: 'histogram',
        histograms: windows.map((s) => ({
          labels: labels(s),
          bounds: s.jobDuration.bounds,
          counts: s.jobDuration.counts,
          sum: s.jobDuration.sum,
        })),
      },
      {
        name: 'media_spaces_requests_total',
        labelNames: ['operation', 'status_class'],
        help: 'HTTP requests to the service (each attempt), by operation and status class or error.',
        type: 'counter',
        samples: [...this.requests.values()].map((r) => ({
          labels: { operation: r.operation, status_class: r.statusClass },
          value: r.count,
        })),
      },
      {
        name: 'media_spaces_coordination_failures_total',
        labelNames: [],
        help: 'Redis commands of the coordination that failed (unreachable, timed out, refused).',
        type: 'counter',
        samples: [{ labels: {}, value: this.coordinationFailureCount }],
      },
      {
        name: 'media_spaces_feed_refresh_failures_total',
        labelNames: ['feed'],
        help: 'Failed refreshes of a schedule feed (calendar, EPG).',
        type: 'counter',
        samples: [...this.feeds].map(([feed, f]) => ({ labels: { feed }, value: f.failures })),
      },
      {
        name: 'media_spaces_feed_last_success_timestamp_seconds',
        labelNames: ['feed'],
        help: 'Last successful refresh of a schedule feed, Unix time (staleness is time() minus this).',
        type: 'gauge',
        samples: [...this.feeds]
          .filter(([, f]) => f.lastSuccess !== undefined)
          .map(([feed, f]) => ({ labels: { feed }, value: (f.lastSuccess ?? 0) / 1000 })),
      },
      {
        name: 'media_spaces_service_clock_offset_seconds',
        labelNames: ['origin'],
        help: "The service's clock minus this host's, as its answers' Date headers settle it (to within a quarter of a second); recordings start and stop by this host's clock.",
        type: 'gauge',
        samples: [...this.clockOffsets].map(([origin, value]) => ({ labels: { origin }, value })),
      },
    ];
    return families;
  }
}

/** "Submit job" -> "submit_job": the client names its operations in words. */
function operationLabel(text: string): string {
  return (
    String(text)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '') || 'unknown'
  );
}

/** `<schedule>:<window>:<start>` when the slot's end was not seen here (a restart, another instance). */
function keyFromSlot(slot: string): string | undefined {
  const m = /^([^:]+):(.+):[^:]*\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.exec(slot) ?? /^([^:]+):([^:]+):/.exec(slot);
  return m ? `${m[1]}\u0000${m[2]}` : undefined;
}

let shared: SlotMetrics | undefined;

/** The process's one SlotMetrics, subscribed on first call. */
export function metrics(): SlotMetrics {
  if (!shared) {
    shared = new SlotMetrics();
    shared.start();
  }
  return shared;
}
