import type { JobView, ScheduleView, SlotView } from '../activity-types';
import { el, setClass, setText } from './dom';
import { slotWhen, span, timeIn } from './format';
import { describeSlot, listOf } from './slot-text';
import { classWord } from './timeline';

/** How many finished jobs are listed (the newest), and recent windows of a schedule shown alone. */
const RECENT_SHOWN = 10;
/** How many recent windows of each schedule are listed (the newest) when several are shown. */
const RECENT_PER_SCHEDULE = 5;
const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

interface Item {
  root: HTMLElement;
  title: HTMLElement;
  state: HTMLElement;
  detail: HTMLElement;
  bar?: HTMLElement;
  sig: string;
  section: SectionName;
}

type SectionName = 'recording' | 'jobs' | 'failures' | 'windows' | 'done';
const SECTION_TITLES: Record<SectionName, string> = {
  recording: 'Windows in progress',
  jobs: 'Jobs in progress',
  failures: 'Failures',
  windows: 'Recent windows',
  done: 'Finished jobs',
};

/**
 * What is happening now: windows in progress (starting, recording,
 * stopping), jobs being followed (a progress bar each), failures and missed
 * windows with their reason, and the newest windows and jobs that ended.
 * Keyed: a job update touches that job's row only; a job that ends moves to its section.
 */
export class InFlight {
  readonly root = el('div', 'ms-fl');
  private readonly sections = new Map<SectionName, { box: HTMLElement; count: HTMLElement; list: HTMLElement }>();
  private readonly items = new Map<string, Item>();
  /** recent windows: a group per schedule, by node id */
  private readonly groups = new Map<string, { root: HTMLElement; head: HTMLElement; list: HTMLElement }>();
  private recordings: { key: string; slot: SlotView; detail: string }[] = [];
  /** sections listing fewer than they have: how many they have */
  private readonly totals = new Map<SectionName, number>();

  constructor(
    private readonly reveal: (nodeId: string) => void,
    /** a workflow's name, where the editor knows it */
    private readonly workflowName: (workflowId: string) => string | undefined = () => undefined,
  ) {
    for (const name of Object.keys(SECTION_TITLES) as SectionName[]) {
      const box = el('div', `ms-fl-section ms-fl-${name}`);
      const head = el('div', 'ms-fl-head', SECTION_TITLES[name]);
      const count = el('span', 'ms-fl-count');
      head.append(count);
      const list = el('div', 'ms-fl-list');
      box.append(head, list);
      this.root.append(box);
      this.sections.set(name, { box, count, list });
    }
  }

  /**
   * Each reported slot by its stage, with its start (and end) in its
   * window's zone: in progress, missed or failed, and the newest that ended,
   * grouped by schedule (the RECENT_PER_SCHEDULE newest of each, or the
   * RECENT_SHOWN newest of a schedule shown alone), so that a schedule
   * starting every minute does not push another's windows off the list.
   * Planned slots are the timeline's: a start that passed unreported is not a recording.
   */
  updateSchedules(schedules: ScheduleView[], now: number): void {
    const seen = new Set<string>();
    const recent = new Map<ScheduleView, { key: string; start: number; show: (into: HTMLElement) => void }[]>();
    this.recordings = [];
    for (const schedule of schedules) {
      const windows = new Map(schedule.windows.map((w) => [w.id, w]));
      for (const slot of schedule.slots) {
        const window = windows.get(slot.windowId);
        const zone = window?.timezone ?? 'UTC';
        const text = describeSlot(slot, zone);
        const section = listOf(slot, text);
        if (!section) continue;
        const key = `slot|${schedule.nodeId}|${slot.windowId}@${slot.start}`;
        // the programme first (a calendar's or guide's title and episode), then its window and schedule
        const title = [slot.title, window?.name ?? slot.windowId, schedule.name].filter(Boolean).join(' · ');
        const detail = `${slotWhen(slot.start, slot.end, zone, now)} · ${text.headline}`;
        const show = (into?: HTMLElement) => {
          seen.add(key);
          const shown = section === 'recording' ? timing(detail, slot, now) : detail;
          const item = this.put(key, section, schedule.nodeId, title, text.stage, shown, undefined, into);
          item.root.dataset.stage = text.stage;
          // a slot's name is one line, cut with an ellipsis on screen; its title attribute has it whole
          item.title.classList.add('ms-fl-cut');
          item.root.dataset.start = String(slot.start);
        };
        if (section === 'windows') {
          const list = recent.get(schedule) ?? [];
          list.push({ key, start: slot.start, show });
          recent.set(schedule, list);
          continue;
        }
        if (section === 'recording') this.recordings.push({ key, slot, detail });
        show();
      }
    }
    const limit = schedules.length === 1 ? RECENT_SHOWN : RECENT_PER_SCHEDULE;
    let total = 0;
    const groups: HTMLElement[] = [];
    for (const [schedule, slots] of recent) {
      slots.sort((a, b) => b.start - a.start);
      total += slots.length;
      const shown = slots.slice(0, limit);
      const group = this.group(schedule.nodeId);
      group.root.title = schedule.name;
      setText(
        group.head,
        slots.length > shown.length ? `${schedule.name} (${shown.length} of ${slots.length})` : schedule.name,
      );
      for (const r of shown) r.show(group.list);
      order(
        group.list,
        shown.map((r) => this.items.get(r.key)?.root),
      );
      groups.push(group.root);
    }
    this.totals.set('windows', total);
    this.drop((key) => key.startsWith('slot|') && !seen.has(key));
    for (const [nodeId, group] of this.groups) {
      if (groups.includes(group.root)) continue;
      group.root.remove();
      this.groups.delete(nodeId);
    }
    const windowsList = this.sections.get('windows')?.list;
    if (windowsList) order(windowsList, groups);
    this.recordings.sort((a, b) => a.slot.start - b.slot.start);
    this.arrange(
      'recording',
      this.recordings.map((r) => r.key),
    );
    this.count();
  }

  /** Jobs in progress; ended ones newest first (the RECENT_SHOWN newest), with the time they ended. */
  updateJobs(jobs: JobView[]): void {
    const seen = new Set<string>();
    const ended = jobs.filter((j) => j.terminal && j.state !== 'failed').sort((a, b) => b.updatedAt - a.updatedAt);
    const shownEnded = new Set(ended.slice(0, RECENT_SHOWN));
    const names = new Map<string, string | undefined>();
    for (const job of jobs) {
      if (job.terminal && job.state !== 'failed' && !shownEnded.has(job)) continue;
      const key = `job|${job.nodeId}/${job.jobId}`;
      seen.add(key);
      const section: SectionName = !job.terminal ? 'jobs' : job.state === 'failed' ? 'failures' : 'done';
      if (!names.has(job.workflowId)) names.set(job.workflowId, this.workflowName(job.workflowId));
      const workflow = names.get(job.workflowId);
      const parts = [job.reason, workflow ? `workflow ${workflow}` : `workflow ${job.workflowId}`];
      if (job.terminal) parts.push(`${job.state} at ${timeIn(job.updatedAt, LOCAL_ZONE, true)}`);
      const detail = parts.filter(Boolean).join(' · ');
      const item = this.put(key, section, job.nodeId, job.name || job.jobId, job.state, detail, job.progress ?? 0);
      item.root.dataset.state = job.state;
    }
    this.totals.set('done', ended.length);
    this.drop((key) => key.startsWith('job|') && !seen.has(key));
    this.arrange(
      'done',
      [...shownEnded].map((j) => `job|${j.nodeId}/${j.jobId}`),
    );
  }

  /** Elapsed and remaining time of the windows in progress. */
  tick(now: number): void {
    for (const { key, slot, detail } of this.recordings) {
      const item = this.items.get(key);
      if (item) setText(item.detail, timing(detail, slot, now));
    }
    this.count();
  }

  /** Puts a section's items in the given order, moving only those out of place. */
  private arrange(section: SectionName, keys: string[]): void {
    const list = this.sections.get(section)?.list;
    if (list)
      order(
        list,
        keys.map((key) => this.items.get(key)?.root),
      );
  }

  /** The recent windows' group of a schedule: its name over its rows. */
  private group(nodeId: string): { root: HTMLElement; head: HTMLElement; list: HTMLElement } {
    let group = this.groups.get(nodeId);
    if (!group) {
      const root = el('div', 'ms-fl-group');
      root.dataset.node = nodeId;
      const head = el('div', 'ms-fl-group-head');
      const list = el('div', 'ms-fl-group-list');
      root.append(head, list);
      group = { root, head, list };
      this.groups.set(nodeId, group);
      this.sections.get('windows')?.list.append(root);
    }
    return group;
  }

  private put(
    key: string,
    section: SectionName,
    nodeId: string,
    title: string,
    state: string,
    detail: string,
    progress?: number,
    /** the list it goes in, when not its section's own (a schedule's group) */
    into?: HTMLElement,
  ): Item {
    let item = this.items.get(key);
    if (!item) {
      item = this.create(key, nodeId, progress !== undefined);
      this.items.set(key, item);
    }
    const list = into ?? this.sections.get(section)?.list;
    if (item.section !== section || item.root.parentElement !== list) {
      item.section = section;
      list?.append(item.root);
    }
    const sig = JSON.stringify([title, state, detail, progress]);
    if (sig === item.sig) return item;
    item.sig = sig;
    setText(item.title, title);
    item.title.title = title;
    setText(item.state, state);
    setClass(item.state, `ms-fl-state ms-state-${classWord(state)}`);
    setText(item.detail, detail);
    if (item.bar && progress !== undefined) {
      item.bar.style.width = `${progress}%`;
      item.bar.parentElement?.setAttribute('aria-valuenow', String(progress));
    }
    return item;
  }

  private create(key: string, nodeId: string, withBar: boolean): Item {
    const root = el('div', 'ms-fl-item');
    root.dataset.key = key;
    root.dataset.node = nodeId;
    root.addEventListener('click', () => this.reveal(nodeId));
    const top = el('div', 'ms-fl-top');
    const title = el('span', 'ms-fl-title');
    const state = el('span', 'ms-fl-state');
    top.append(title, state);
    const detail = el('div', 'ms-fl-detail');
    root.append(top);
    let bar: HTMLElement | undefined;
    if (withBar) {
      const track = el('div', 'ms-fl-progress');
      track.setAttribute('role', 'progressbar');
      track.setAttribute('aria-valuemin', '0');
      track.setAttribute('aria-valuemax', '100');
      bar = el('div', 'ms-fl-progress-bar');
      track.append(bar);
      root.append(track);
    }
    root.append(detail);
    return { root, title, state, detail, bar, sig: '', section: 'jobs' };
  }

  private drop(gone: (key: string) => boolean): void {
    for (const [key, item] of this.items) {
      if (!gone(key)) continue;
      item.root.remove();
      this.items.delete(key);
    }
    this.count();
  }

  private count(): void {
    const counts = new Map<SectionName, number>();
    for (const item of this.items.values()) counts.set(item.section, (counts.get(item.section) ?? 0) + 1);
    for (const [name, { box, count }] of this.sections) {
      const n = counts.get(name) ?? 0;
      const total = this.totals.get(name) ?? n;
      setText(count, n === 0 ? '' : total > n ? ` (${n} of ${total})` : ` (${n})`);
      box.classList.toggle('ms-none', n === 0);
    }
  }
}

function timing(detail: string, slot: SlotView, now: number): string {
  if (now >= slot.end) return `${detail} · ended ${span(now - slot.end)} ago`;
  return `${detail} · ${span(now - slot.start)} elapsed · ${span(slot.end - now)} left`;
}

/** Puts a list's children in the given order, moving only those out of place. */
function order(list: HTMLElement, nodes: (HTMLElement | undefined)[]): void {
  let expected = list.firstElementChild;
  for (const node of nodes) {
    if (!node) continue;
    if (node !== expected) list.insertBefore(node, expected);
    expected = node.nextElementSibling;
  }
}
