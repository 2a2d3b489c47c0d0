import os from 'node:os';
import path from 'node:path';
import { reportFeedRefresh } from '../feed-events';
import type { ScheduleConfig, ScheduleWindow } from './config';
import type { FeedReloadResult } from './feed-reload';
import type { PlannedOccurrence } from './plan';
import type { Scheduler } from './scheduler';
import type { FeedRead, FeedWindowSource } from './sources';
import { planned } from './sources/occurrence';

type Sources = typeof import('./sources');

export type { FeedReloadResult };

/** How far ahead a feed's occurrences are planned (the sidebar's week, and a day more). */
export const PLAN_AHEAD_MS = 8 * 24 * 3600_000;
/** How far back: a programme that began before a restart and still runs is caught up. */
const PLAN_BACK_MS = 24 * 3600_000;
/**
 * ms: a feed file that is not there at deploy, with no last good copy, is looked for again this soon before
 * it is warned of: a flow that writes its own feed at deploy (inject once -> file -> reload) has written it.
 */
export const FIRST_FILE_GRACE_MS = 5000;

/** ms a calendar may take to expand (its worker is stopped after): a bigger one is refused as broken. */
const CALENDAR_TIMEOUT_MS = 120_000;

/** A feed window's state, for the badge and the sidebar. */
export interface FeedHealth {
  windowId: string;
  ok: boolean;
  staleSince?: Date;
  lastError?: string;
  occurrences: number;
}

/** What the feeds read of the schedule node they work for. */
export interface FeedPlanReads {
  scheduler(): Scheduler | undefined;
  config(): ScheduleConfig;
  /** where feeds keep their last good copy (a restart with the feed down still records) */
  dir: string | undefined;
  /** the address and credentials a window's feed is fetched with; a sentence when they are missing */
  access(source: FeedWindowSource): { location: string; credentials?: import('./sources').FeedCredentials } | string;
}

/**
 * What the feeds ask of the schedule node, as data; the node carries each out, in the order given:
 * - `warn`: a feed's address or credentials missing, its problems (told again only when they change, so a
 *   refresh every few minutes does not repeat them), or its last good copy unreadable: one sentence each;
 * - `changed`: a feed was read or failed, so its health may have changed (the badge and the sidebar).
 */
export type FeedPlanOut = { kind: 'warn'; text: string } | { kind: 'changed' };

interface Entry {
  source: FeedWindowSource;
  window: ScheduleWindow;
  /** absent when the feed's address or credentials are missing */
  feed?: import('./sources').Feed;
  timer?: NodeJS.Timeout;
  /** aborted when the entry goes (its window changed or removed, the schedule closed): its reads stop */
  stop: AbortController;
  health: FeedHealth;
  /** the feed's problems last warned of, so that each refresh does not repeat them */
  warned: string;
  /** epoch ms: until then a feed file not there yet, with no last good copy, is looked for again quietly */
  graceUntil?: number;
  /** the last read's problems (events or programmes left out), for "Reload feed" */
  problems?: string[];
  /** the feed was read (or failed) once since the window opened: its plan is what the feed says */
  read?: boolean;
  /** the last good read's occurrences and repeats, padded: a re-record booked later is planned from them */
  airings?: { planned: PlannedOccurrence[]; repeats: PlannedOccurrence[] };
}

/**
 * The calendar and guide windows of one schedule: each feed read from its last
 * good copy at once, then fetched on its `refresh` interval (and on a `reload`
 * message), its occurrences padded and handed to the scheduler as the window's
 * plan. A feed that fails keeps its last good plan: an outage never cancels.
 */
export class FeedPlans {
  private readonly entries = new Map<string, Entry>();
  private sources: Sources | undefined;
  private closed = false;

  /** `out`: the node's one way of carrying out what the feeds ask (this lib knows no Node-RED). */
  constructor(
    private readonly reads: FeedPlanReads,
    private readonly out: (effect: FeedPlanOut) => void,
  ) {}

  /** The feeds of the windows now configured: new ones read and fetched, changed ones anew, gone ones stopped. */
  configure(): void {
    if (this.closed) return;
    const windows = this.reads.config().windows.filter((w) => w.source?.kind === 'ical' || w.source?.kind === 'xmltv');
    for (const [id, entry] of this.entries) {
      const now = windows.find((w) => w.id === id);
      if (
        !now ||
        JSON.stringify(now.source) !== JSON.stringify(entry.source) ||
        now.timezone !== entry.window.timezone
      ) {
        clearTimeout(entry.timer);
        entry.stop.abort();
        this.entries.delete(id);
      }
    }
    for (const w of windows) if (!this.entries.has(w.id)) this.open(w);
  }

  /** Fetches every feed now (a `reload` message); the ids of the windows refreshed. */
  reload(): string[] {
    for (const entry of this.entries.values()) void this.refresh(entry);
    return [...this.entries.keys()];
  }

  /**
   * Fetches one window's feed now and says what it read: the occurrences the window plans, the feed's
   * problems, or why the fetch failed (the window keeps its last good plan). Refused for a window that reads
   * no feed.
   */
  async reloadWindow(windowId: string): Promise<FeedReloadResult> {
    const entry = this.entries.get(windowId);
    if (!entry) throw new Error(`window "${windowId}" reads no calendar or guide`);
    await this.refresh(entry);
    const now = this.entries.get(windowId) ?? entry;
    return {
      windowId,
      ok: now.health.ok,
      occurrences: now.health.occurrences,
      problems: [...(now.problems ?? [])],
      ...(now.health.lastError ? { error: now.health.lastError } : {}),
    };
  }

  /**
   * Whether every feed was read (or failed) once: until then the plan lacks occurrences that are coming, and
   * a conflict decided on it could name a winner as a loser.
   */
  settled(): boolean {
    for (const e of this.entries.values()) if (e.feed && !e.read && e.health.ok) return false;
    return true;
  }

  /**
   * Every airing the window's feed lists from its last good read, padded: the planned ones and the repeats a
   * guide read `duplicates: once` leaves out (what a re-record may book).
   */
  airings(windowId: string): PlannedOccurrence[] {
    const a = this.entries.get(windowId)?.airings;
    return a ? [...a.planned, ...a.repeats] : [];
  }

  /** The later airings the window's guide leaves out of its plan (`duplicates: once`), padded: what may be booked. */
  repeats(windowId: string): readonly PlannedOccurrence[] {
    return this.entries.get(windowId)?.airings?.repeats ?? [];
  }

  /** The window's plan again from its last good read, with the scheduler's re-record bookings now (a new booking). */
  replan(windowId: string): void {
    const entry = this.entries.get(windowId);
    if (entry?.airings) this.plan(entry);
  }

  health(): FeedHealth[] {
    return [...this.entries.values()].map((e) => ({ ...e.health }));
  }

  close(): void {
    this.closed = true;
    for (const entry of this.entries.values()) {
      clearTimeout(entry.timer);
      entry.stop.abort();
    }
    this.entries.clear();
  }

  private open(window: ScheduleWindow): void {
    const source = window.source as FeedWindowSource;
    const health: FeedHealth = { windowId: window.id, ok: true, occurrences: 0 };
    const access = this.reads.access(source);
    if (typeof access === 'string') {
      this.out({ kind: 'warn', text: access });
      this.entries.set(window.id, {
        source,
        window,
        stop: new AbortController(),
        health: { ...health, ok: false, lastError: access },
        warned: access,
      });
      return;
    }
    // the sources' parsers (ical.js, saxes, zod schemas) load with the first feed window, not with Node-RED
    this.sources ??= require('./sources') as Sources;
    const stop = new AbortController();
    const feed = new this.sources.Feed({
      location: access.location,
      label: window.id,
      dir: this.reads.dir ?? path.join(os.tmpdir(), 'media-spaces-feeds'),
      ...(access.credentials ? { credentials: access.credentials } : {}),
      allowEmpty: source.allowEmpty,
      signal: stop.signal,
    });
    const entry: Entry = {
      source,
      window,
      feed,
      stop,
      health,
      warned: '',
      graceUntil: Date.now() + FIRST_FILE_GRACE_MS,
    };
    this.entries.set(window.id, entry);
    void feed
      .readSnapshot(this.reader(entry))
      .then((read) => {
        if (read.result && this.entries.get(window.id) === entry) this.apply(entry, read);
      })
      .catch((err) =>
        this.out({
          kind: 'warn',
          text: `window "${window.id}": the feed's last good copy cannot be read: ${String(err)}`,
        }),
      )
      .finally(() => void this.refresh(entry));
  }

  private async refresh(entry: Entry): Promise<void> {
    if (!entry.feed || this.closed) return;
    clearTimeout(entry.timer);
    let again = entry.source.refresh;
    try {
      const read = await entry.feed.refresh(this.reader(entry));
      if (this.closed || this.entries.get(entry.window.id) !== entry) return;
      const wait = (entry.graceUntil ?? 0) - Date.now();
      if (wait > 0 && read.from === 'none' && read.state.lastError === this.sources?.FILE_MISSING) {
        again = wait;
        return;
      }
      entry.graceUntil = undefined;
      reportFeedRefresh(entry.window.id, read.state.ok);
      this.apply(entry, read);
    } catch (err) {
      entry.health = {
        ...entry.health,
        ok: false,
        lastError: String(err),
        staleSince: entry.health.staleSince ?? new Date(),
      };
      this.out({ kind: 'changed' });
    } finally {
      if (!this.closed && this.entries.get(entry.window.id) === entry) {
        entry.timer = setTimeout(() => void this.refresh(entry), again);
        entry.timer.unref?.();
      }
    }
  }

  private reader(entry: Entry) {
    const sources = this.sources as Sources;
    const now = Date.now();
    const from = new Date(now - PLAN_BACK_MS);
    const to = new Date(now + PLAN_AHEAD_MS);
    const { source, window } = entry;
    return source.kind === 'ical'
      ? // ical.js parses a whole calendar at once: off the thread that times every schedule
        sources.calendarReaderOffThread(
          {
            windowId: window.id,
            zone: window.timezone,
            from,
            to,
            match: source.match,
            allDay: source.allDay,
            defaultDuration: source.defaultDuration ?? window.duration * 1000,
          },
          CALENDAR_TIMEOUT_MS,
          entry.stop.signal,
        )
      : sources.guideReader(
          {
            windowId: window.id,
            zone: window.timezone,
            from,
            to,
            match: source.match,
            sources: source.sources,
          },
          undefined,
          entry.stop.signal,
        );
  }

  /** The occurrences read become the window's plan; the feed's health and problems are told. */
  private apply(entry: Entry, read: FeedRead): void {
    const { state, result } = read;
    entry.read = true;
    entry.health = {
      windowId: entry.window.id,
      ok: state.ok,
      ...(state.staleSince ? { staleSince: state.staleSince } : {}),
      ...(state.lastError ? { lastError: state.lastError } : {}),
      occurrences: result?.occurrences.length ?? entry.health.occurrences,
    };
    if (result) entry.problems = [...result.problems];
    const said = [state.lastError ? `the feed is stale: ${state.lastError}` : '', ...(result?.problems ?? [])]
      .filter(Boolean)
      .join(' ');
    if (said && said !== entry.warned) this.out({ kind: 'warn', text: `window "${entry.window.id}": ${said}` });
    entry.warned = said;
    if (result && !result.error) {
      entry.airings = {
        planned: result.occurrences.map((o) => planned(o, entry.source.padding)),
        repeats: (result.repeats ?? []).map((o) => planned(o, entry.source.padding)),
      };
      this.plan(entry);
    }
    this.out({ kind: 'changed' });
  }

  /** The window's plan: the feed's occurrences, and the repeats booked to record a failed slot again. */
  private plan(entry: Entry): void {
    const scheduler = this.reads.scheduler();
    if (!scheduler || !entry.airings) return;
    const booked = new Map(
      scheduler
        .bookings()
        .filter((b) => b.windowId === entry.window.id)
        .map((b) => [b.occurrence, b.of]),
    );
    const mark = (o: PlannedOccurrence): PlannedOccurrence => {
      const of = booked.get(o.id);
      return of ? { ...o, rerecordOf: of } : o;
    };
    const occurrences = [
      ...entry.airings.planned.map(mark),
      ...entry.airings.repeats.filter((o) => booked.has(o.id)).map(mark),
    ].sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    scheduler.setOccurrences(entry.window.id, occurrences, Date.now() + PLAN_AHEAD_MS, {
      stopCancelled: entry.source.onCancel === 'stop',
    });
  }
}
