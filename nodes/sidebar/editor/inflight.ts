import type { JobView, ScheduleView, SlotView } from '../activity-types';
import { el, setClass, setText } from './dom';
import { span } from './format';
import { outcomeText } from './timeline';

interface Item {
  root: HTMLElement;
  title: HTMLElement;
  state: HTMLElement;
  detail: HTMLElement;
  bar?: HTMLElement;
  sig: string;
  section: SectionName;
}

type SectionName = 'recording' | 'jobs' | 'failures' | 'done';
const SECTION_TITLES: Record<SectionName, string> = {
  recording: 'Recording',
  jobs: 'Jobs in progress',
  failures: 'Failures',
  done: 'Finished jobs',
};

/**
 * What is happening now: channels being recorded, jobs being followed (a
 * progress bar each), and failures with their reason. Keyed: a job update
 * touches that job's row only; a job that ends moves to its section.
 */
export class InFlight {
  readonly root = el('div', 'ms-fl');
  private readonly sections = new Map<SectionName, { box: HTMLElement; count: HTMLElement; list: HTMLElement }>();
  private readonly items = new Map<string, Item>();
  private recordings: { key: string; slot: SlotView }[] = [];

  constructor(private readonly reveal: (nodeId: string) => void) {
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

  /** Slots recording now, and the past day's failed slots. */
  updateSchedules(schedules: ScheduleView[], now: number): void {
    const seen = new Set<string>();
    this.recordings = [];
    for (const schedule of schedules) {
      const names = new Map(schedule.windows.map((w) => [w.id, w.name]));
      for (const slot of schedule.slots) {
        const failed = slot.phase === 'past' && slot.outcome?.channel === 'failed';
        if (slot.phase !== 'active' && !failed) continue;
        const key = `slot|${schedule.nodeId}|${slot.windowId}@${slot.start}`;
        seen.add(key);
        const title = `${names.get(slot.windowId) ?? slot.windowId} · ${schedule.name}`;
        if (failed) {
          this.put(
            key,
            'failures',
            schedule.nodeId,
            title,
            'channel failed',
            slot.outcome?.reason ?? outcomeText(slot),
          );
        } else {
          this.recordings.push({ key, slot });
          this.put(key, 'recording', schedule.nodeId, title, slot.channel?.state ?? 'in window', timing(slot, now));
        }
      }
    }
    this.drop((key) => key.startsWith('slot|') && !seen.has(key));
  }

  updateJobs(jobs: JobView[]): void {
    const seen = new Set<string>();
    for (const job of jobs) {
      const key = `job|${job.nodeId}/${job.jobId}`;
      seen.add(key);
      const section: SectionName = !job.terminal ? 'jobs' : job.state === 'failed' ? 'failures' : 'done';
      const detail = job.reason ?? `workflow ${job.workflowId}`;
      const item = this.put(key, section, job.nodeId, job.name || job.jobId, job.state, detail, job.progress ?? 0);
      item.root.dataset.state = job.state;
    }
    this.drop((key) => key.startsWith('job|') && !seen.has(key));
  }

  /** Elapsed and remaining time of the recordings. */
  tick(now: number): void {
    for (const { key, slot } of this.recordings) {
      const item = this.items.get(key);
      if (item) setText(item.detail, timing(slot, now));
    }
    this.count();
  }

  private put(
    key: string,
    section: SectionName,
    nodeId: string,
    title: string,
    state: string,
    detail: string,
    progress?: number,
  ): Item {
    let item = this.items.get(key);
    if (!item) {
      item = this.create(key, nodeId, progress !== undefined);
      this.items.set(key, item);
    }
    if (item.section !== section || !item.root.parentElement) {
      item.section = section;
      this.sections.get(section)?.list.append(item.root);
    }
    const sig = JSON.stringify([title, state, detail, progress]);
    if (sig === item.sig) return item;
    item.sig = sig;
    setText(item.title, title);
    setText(item.state, state);
    setClass(item.state, `ms-fl-state ms-state-${state.toLowerCase().replace(/[^a-z]/g, '')}`);
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
    for (const { box, count, list } of this.sections.values()) {
      const n = list.childElementCount;
      setText(count, n ? ` (${n})` : '');
      box.classList.toggle('ms-none', n === 0);
    }
  }
}

function timing(slot: SlotView, now: number): string {
  return `${span(now - slot.start)} elapsed · ${span(slot.end - now)} left`;
}
