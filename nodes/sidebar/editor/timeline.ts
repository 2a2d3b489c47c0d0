import type {
  ActionName,
  ActivitySnapshot,
  FeedReloadResult,
  ScheduleView,
  SlotView,
  ZoneDay,
} from '../activity-types';
import { postReload } from './api';
import { el, setClass, setText } from './dom';
import { dateIn, dayIn, slotLabel, span, timeIn } from './format';
import { describeSlot, type SlotText } from './slot-text';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const LANE_PX = 20;

export type ViewName = '6h' | '24h' | '7d';
/** How much of the past and of the future each view shows. */
export const VIEWS: Record<ViewName, { behind: number; ahead: number; tick: number }> = {
  '6h': { behind: HOUR, ahead: 6 * HOUR, tick: HOUR },
  '24h': { behind: 4 * HOUR, ahead: 24 * HOUR, tick: 3 * HOUR },
  '7d': { behind: 24 * HOUR, ahead: 7 * 24 * HOUR, tick: 0 },
};

interface TimelineHooks {
  reveal(nodeId: string): void;
  act(schedule: ScheduleView, action: ActionName): void;
}

interface Bar {
  node: HTMLElement;
  text: HTMLElement;
  sig: string;
  slot: SlotView;
  label: string;
  headline: string;
}

/** A window's "Reload feed": what is said beside the button, and whether the answer is still awaited. */
interface ReloadState {
  text: string;
  failed: boolean;
  pending: boolean;
}

interface Row {
  root: HTMLElement;
  title: HTMLElement;
  state: HTMLElement;
  buttons: HTMLElement;
  /** a "Reload feed" button per calendar or guide window, each with its last result beside it */
  feeds: HTMLElement;
  /** the result shown of each window's last reload (or that it is under way), kept across renders */
  reloaded: Map<string, ReloadState>;
  track: HTMLElement;
  bars: Map<string, Bar>;
  sig: string;
  schedule: ScheduleView;
}

/**
 * Every deployed schedule's slots on one time axis: a row per schedule, a
 * lane per window, absolutely positioned bars in percent of the view (so a
 * resize costs nothing). Updates are keyed: a bar is touched only when its
 * slot changed, a row only when its schedule did.
 */
export class Timeline {
  readonly root = el('div', 'ms-tl');
  private readonly axis = el('div', 'ms-tl-axis');
  private readonly days = el('div', 'ms-tl-days');
  private readonly rowsBox = el('div', 'ms-tl-rows');
  private readonly nowLine = el('div', 'ms-tl-now');
  private readonly rows = new Map<string, Row>();
  /** per schedule, its windows' reloads: they outlive a row taken away and drawn again (the toolbar's filter) */
  private readonly reloads = new Map<string, Map<string, ReloadState>>();
  private view: ViewName = '24h';
  private snapshot: ActivitySnapshot | undefined;
  /** runtime clock minus browser clock */
  private skew = 0;

  constructor(private readonly hooks: TimelineHooks) {
    this.root.append(this.axis, this.days, this.rowsBox, this.nowLine);
  }

  get currentView(): ViewName {
    return this.view;
  }

  setView(view: ViewName): void {
    this.view = view;
    this.root.dataset.view = view;
    if (this.snapshot) this.render(this.snapshot);
  }

  now(): number {
    return Date.now() + this.skew;
  }

  render(snapshot: ActivitySnapshot): void {
    this.snapshot = snapshot;
    this.skew = snapshot.now - Date.now();
    const { from, to } = this.range();
    // a view just chosen is drawn from the last answer until its own range arrives: tests and styles can tell
    this.root.dataset.drawn = snapshot.range.from <= from + MINUTE && snapshot.range.to >= to - MINUTE ? this.view : '';
    this.renderAxis(from, to, snapshot.days[0]?.timezone ?? 'UTC', snapshot.days);
    this.renderDays(snapshot.days, from, to);
    const seen = new Set<string>();
    let previous: Element | null = null;
    for (const schedule of snapshot.schedules) {
      seen.add(schedule.nodeId);
      const row = this.renderRow(schedule, from, to);
      // keeps the runtime's order, moving a row only when it is out of place
      const expected: Element | null = previous ? previous.nextElementSibling : this.rowsBox.firstElementChild;
      if (expected !== row.root) this.rowsBox.insertBefore(row.root, expected);
      previous = row.root;
    }
    for (const [id, row] of this.rows) {
      if (seen.has(id)) continue;
      row.root.remove();
      this.rows.delete(id);
    }
    this.root.classList.toggle('ms-empty', snapshot.schedules.length === 0);
    this.tick();
  }

  /** Moves the now line and refreshes the remaining time of the slots in progress. */
  tick(): void {
    const { from, to } = this.range();
    const now = this.now();
    this.nowLine.style.left = pct(now - from, to - from);
    for (const row of this.rows.values()) {
      for (const bar of row.bars.values()) {
        if (bar.slot.phase === 'active') {
          setText(bar.text, `${bar.label} · ${bar.headline} · ${span(bar.slot.end - now)} left`);
        }
      }
    }
  }

  private range(): { from: number; to: number } {
    const now = this.now();
    const v = VIEWS[this.view];
    return { from: now - v.behind, to: now + v.ahead };
  }

  /**
   * Hours along the top in the 6 h and 24 h views. In the week view, the days of the first zone: a cell
   * from each midnight to the next, named in its middle ("Thu 26"), a day mostly out of view left unnamed.
   * The zone lanes under it give way in a short pane; the axis stays.
   */
  private renderAxis(from: number, to: number, zone: string, days: ZoneDay[]): void {
    this.axis.textContent = '';
    const step = VIEWS[this.view].tick;
    if (step === 0) {
      const partial: HTMLElement[] = [];
      for (const day of days) {
        if (day.timezone !== zone || day.end <= from || day.start >= to) continue;
        const start = Math.max(day.start, from);
        const shown = Math.min(day.end, to) - start;
        const cell = el(
          'span',
          'ms-tl-date',
          shown >= 0.75 * (day.end - day.start) ? dateIn(day.start + HOUR, zone) : '',
        );
        cell.dataset.date = day.date;
        cell.title = `${dayIn(day.start + HOUR, zone)} (${zone})`;
        place(cell, start - from, shown, to - from);
        this.axis.append(cell);
        if (shown < day.end - day.start && cell.textContent) partial.push(cell);
      }
      // a day partly in view may still be too narrow for its name in a narrow pane: unnamed, its title names it
      for (const cell of partial) if (cell.scrollWidth > cell.clientWidth) cell.textContent = '';
      return;
    }
    for (let t = Math.ceil(from / step) * step; t < to; t += step) {
      const tick = el('span', 'ms-tl-tick', timeIn(t, zone));
      tick.style.left = pct(t - from, to - from);
      this.axis.append(tick);
    }
  }

  private renderDays(days: ZoneDay[], from: number, to: number): void {
    this.days.textContent = '';
    const zones = new Map<string, HTMLElement>();
    for (const day of days) {
      if (day.end <= from || day.start >= to) continue;
      let lane = zones.get(day.timezone);
      if (!lane) {
        lane = el('div', 'ms-tl-zone');
        lane.append(el('span', 'ms-tl-zone-name', day.timezone));
        zones.set(day.timezone, lane);
        this.days.append(lane);
      }
      const label = `${dayIn(day.start + HOUR, day.timezone)}${day.hours === 24 ? '' : ` · ${day.hours} h`}`;
      const cell = el('span', day.hours === 24 ? 'ms-tl-day' : 'ms-tl-day ms-tl-dst', label);
      cell.dataset.date = day.date;
      cell.dataset.hours = String(day.hours);
      cell.title = `${day.date} in ${day.timezone}: ${day.hours} hours`;
      place(cell, Math.max(day.start, from) - from, Math.min(day.end, to) - Math.max(day.start, from), to - from);
      lane.append(cell);
    }
  }

  private renderRow(schedule: ScheduleView, from: number, to: number): Row {
    let row = this.rows.get(schedule.nodeId);
    if (!row) {
      row = this.createRow(schedule);
      this.rows.set(schedule.nodeId, row);
    }
    row.schedule = schedule;
    const feedWindows = schedule.windows.filter((w) => w.source === 'ical' || w.source === 'xmltv');
    const sig = JSON.stringify([
      schedule.name,
      schedule.paused,
      schedule.actions,
      schedule.windows.length,
      feedWindows.map((w) => [w.id, w.name]),
    ]);
    if (sig !== row.sig) {
      row.sig = sig;
      setText(row.title, schedule.name);
      row.title.title = schedule.name;
      setText(row.state, schedule.paused ? 'paused' : '');
      row.root.classList.toggle('ms-paused', schedule.paused);
      row.track.style.height = `${Math.max(1, schedule.windows.length) * LANE_PX}px`;
      this.renderButtons(row);
      renderFeeds(row, feedWindows, () => this.rows.get(schedule.nodeId)?.feeds);
    }
    const lanes = new Map(schedule.windows.map((w, i) => [w.id, { window: w, lane: i }]));
    const seen = new Set<string>();
    /** per lane, where the last bar's label may run to: the start of the next bar in the lane */
    const previous = new Map<number, Bar>();
    for (const slot of schedule.slots) {
      if (slot.end <= from || slot.start >= to) continue;
      const key = `${slot.windowId}@${slot.start}`;
      seen.add(key);
      const where = lanes.get(slot.windowId);
      const lane = where?.lane ?? 0;
      const window = where?.window ?? { id: slot.windowId, name: slot.windowId, timezone: 'UTC' };
      const bar = this.renderBar(row, key, slot, lane, window.name, window.timezone, from, to);
      const before = previous.get(lane);
      if (before) placeLabel(before, slot.start, from, to);
      previous.set(lane, bar);
    }
    for (const bar of previous.values()) placeLabel(bar, to, from, to);
    for (const [key, bar] of row.bars) {
      if (seen.has(key)) continue;
      bar.node.remove();
      bar.text.remove();
      row.bars.delete(key);
    }
    return row;
  }

  private createRow(schedule: ScheduleView): Row {
    const root = el('div', 'ms-tl-row');
    root.dataset.node = schedule.nodeId;
    const head = el('div', 'ms-tl-head');
    const title = el('a', 'ms-tl-title');
    title.href = '#';
    title.addEventListener('click', (e) => {
      e.preventDefault();
      this.hooks.reveal(schedule.nodeId);
    });
    const state = el('span', 'ms-tl-state');
    const buttons = el('span', 'ms-tl-buttons');
    head.append(title, state, buttons);
    const track = el('div', 'ms-tl-track');
    const feeds = el('div', 'ms-tl-feeds');
    root.append(head, feeds, track);
    let reloaded = this.reloads.get(schedule.nodeId);
    if (!reloaded) {
      reloaded = new Map();
      this.reloads.set(schedule.nodeId, reloaded);
    }
    return { root, title, state, buttons, feeds, reloaded, track, bars: new Map(), sig: '', schedule };
  }

  private renderButtons(row: Row): void {
    row.buttons.textContent = '';
    const { actions, paused } = row.schedule;
    const shown: ActionName[] = actions.filter((a) => (a === 'pause' ? !paused : a === 'resume' ? paused : true));
    for (const action of shown) {
      const button = el('button', `red-ui-button red-ui-button-small ms-act ms-act-${action}`, ACTION_LABELS[action]);
      button.type = 'button';
      button.addEventListener('click', () => this.hooks.act(row.schedule, action));
      row.buttons.append(button);
    }
  }

  private renderBar(
    row: Row,
    key: string,
    slot: SlotView,
    lane: number,
    name: string,
    timezone: string,
    from: number,
    to: number,
  ): Bar {
    let bar = row.bars.get(key);
    if (!bar) {
      const node = el('div', 'ms-tl-bar');
      const text = el('span', 'ms-tl-bar-text');
      for (const part of [node, text]) {
        part.dataset.window = slot.windowId;
        part.dataset.start = String(slot.start);
      }
      node.addEventListener('click', () => this.hooks.reveal(row.schedule.nodeId));
      bar = { node, text, sig: '', slot, label: '', headline: '' };
      row.bars.set(key, bar);
      row.track.append(node, text);
    }
    bar.slot = slot;
    // a calendar's or guide's programme is named first on its bar, then its window (as text: titles come from outside)
    const titled = slot.title ? `${slot.title} · ${name}` : name;
    const windowName = slot.conflict
      ? `${titled} (not recorded: lost a conflict over max_channels)`
      : slot.rerecord
        ? `${titled} (re-record: an earlier airing was not recorded whole)`
        : titled;
    const label = slot.band
      ? `${windowName}: starts go on as planned from ${timeIn(slot.start, timezone)}`
      : slotLabel(windowName, slot.start, slot.end, timezone);
    const text = describeSlot(slot, timezone);
    const sig = JSON.stringify([label, slot.phase, slot.channel, slot.life, slot.outcome, lane, row.schedule.name]);
    if (sig !== bar.sig) {
      bar.sig = sig;
      bar.label = label;
      bar.headline = text.headline;
      const classes = `ms-${slot.phase} ms-stage-${classWord(text.stage)}${slot.band ? ' ms-band' : ''}${slot.conflict ? ' ms-conflict' : ''}${slot.rerecord ? ' ms-rerecord' : ''}${toneClass(slot, text)}`;
      setClass(bar.node, `ms-tl-bar ${classes}`);
      setClass(bar.text, `ms-tl-bar-text ${classes}`);
      for (const part of [bar.node, bar.text]) {
        part.dataset.phase = slot.phase;
        part.dataset.stage = text.stage;
        part.style.top = `${lane * LANE_PX}px`;
      }
      const shown = slot.phase === 'past' || slot.phase === 'due' ? `${label} · ${text.headline}` : label;
      setText(bar.text, shown);
      const what = slot.band ? 'too many starts to draw one by one: one band to the end of the view' : text.headline;
      bar.node.title = `${label}\nschedule: ${row.schedule.name}\n${what}`;
    }
    const start = Math.max(slot.start, from);
    place(bar.node, start - from, Math.min(slot.end, to) - start, to - from);
    return bar;
  }
}

/**
 * A "Reload feed" button per calendar or guide window of a schedule: the runtime fetches the feed now, and
 * what it read (occurrences planned, problems, or why it failed) is said beside the button (as text: the
 * problems quote the feed's titles). The tab may draw the row again while the answer is awaited (the reload
 * itself changes the schedule's plan): the answer goes to the line shown when it comes, found by its window
 * through `feedsNow`, and a line drawn meanwhile says "Reloading…" with its button disabled.
 */
function renderFeeds(row: Row, windows: ScheduleView['windows'], feedsNow: () => HTMLElement | undefined): void {
  row.feeds.textContent = '';
  for (const w of windows) {
    const line = el('div', 'ms-tl-feed');
    line.dataset.window = w.id;
    const button = el('button', 'red-ui-button red-ui-button-small ms-tl-reload', 'Reload feed');
    button.type = 'button';
    button.title = `Fetch the feed of "${w.name}" now (needs media-spaces.write)`;
    const name = el('span', 'ms-tl-feed-name', w.name);
    const result = el('div', 'ms-tl-feed-result');
    line.append(button, name, result);
    row.feeds.append(line);
    const shown = row.reloaded.get(w.id);
    if (shown) paintReload(line, shown);
    const show = (state: ReloadState) => {
      row.reloaded.set(w.id, state);
      const current = [...(feedsNow()?.children ?? [])].find(
        (child): child is HTMLElement => child instanceof HTMLElement && child.dataset.window === w.id,
      );
      if (current) paintReload(current, state);
    };
    button.addEventListener('click', () => {
      show({ text: 'Reloading…', failed: false, pending: true });
      postReload(row.schedule.nodeId, w.id).then((answer) => {
        if (!answer.ok) {
          const why = answer.status === 403 ? 'no permission (media-spaces.write)' : answer.message;
          show({ text: `Could not reload: ${why}`, failed: true, pending: false });
          return;
        }
        show({ text: reloadText(answer.result), failed: !answer.result.ok, pending: false });
      });
    });
  }
}

/** A window's feed line says its reload's state: the text, red when it failed, the button off while awaited. */
function paintReload(line: HTMLElement, state: ReloadState): void {
  const result = line.querySelector<HTMLElement>('.ms-tl-feed-result');
  const button = line.querySelector<HTMLButtonElement>('.ms-tl-reload');
  if (result) {
    setText(result, state.text);
    result.classList.toggle('ms-failed', state.failed);
  }
  if (button) button.disabled = state.pending;
}

/** "12 occurrences planned · 1 problem: …"; "Feed unavailable: HTTP 503 · 12 occurrences planned (last good copy)". */
function reloadText(r: FeedReloadResult): string {
  const count = `${r.occurrences} occurrence${r.occurrences === 1 ? '' : 's'} planned`;
  const head = r.ok ? count : `Feed unavailable: ${r.error ?? 'the fetch failed'} · ${count} (last good copy)`;
  const problems =
    r.problems.length === 0
      ? r.ok
        ? ' · no problems'
        : ''
      : ` · ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}: ${r.problems.join(' ')}`;
  return `${head}${problems}`;
}

const ACTION_LABELS: Record<ActionName, string> = {
  pause: 'Pause',
  resume: 'Resume',
  start: 'Start now',
  skip: 'Skip next',
};

/** Red for an alarm (missed, failed), green for a slot over with something recorded. */
function toneClass(slot: SlotView, text: SlotText): string {
  if (text.alarm) return ' ms-failed';
  return slot.phase === 'past' && text.stage !== 'skipped' && text.stage !== 'cancelled' ? ' ms-ok' : '';
}

/** A stage (or a channel state from the service) as a class name: letters only. */
export function classWord(stage: string): string {
  return stage.toLowerCase().replace(/[^a-z]/g, '');
}

/** A bar's label runs from the bar's end to the next bar of its lane (or the view's end), cut short with an ellipsis. */
function placeLabel(bar: Bar, until: number, from: number, to: number): void {
  const end = Math.min(bar.slot.end, to);
  const left = pct(end - from, to - from);
  const width = pct(Math.max(0, Math.min(until, to) - end), to - from);
  if (bar.text.style.left !== left) bar.text.style.left = left;
  if (bar.text.style.maxWidth !== width) bar.text.style.maxWidth = width;
}

function pct(offset: number, whole: number): string {
  return `${((offset / whole) * 100).toFixed(3)}%`;
}

function place(node: HTMLElement, offset: number, length: number, whole: number): void {
  const left = pct(offset, whole);
  const width = pct(Math.max(length, 0), whole);
  if (node.style.left !== left) node.style.left = left;
  if (node.style.width !== width) node.style.width = width;
}
