import type { ScheduleView } from '../activity-types';
import { el } from './dom';
import { downstreamOf } from './downstream';

/**
 * The toolbar's choice of schedule: all of them, or one, listed by name
 * (set as text: a name is the user's). It is the tab's one filter: the
 * timeline, the windows' lists, the jobs (those followed by a node the
 * schedule's messages reach) and the As-run view show what it lets through.
 */
export class ScheduleFilter {
  readonly root = el('select', 'ms-filter');
  private sig = '';

  constructor(changed: () => void) {
    this.root.title = 'Show one schedule';
    this.root.setAttribute('aria-label', 'Schedule');
    this.root.addEventListener('change', changed);
    this.update([]);
  }

  /** The options for the schedules deployed now; the one chosen stays chosen while it is deployed. */
  update(schedules: ScheduleView[]): void {
    const sig = JSON.stringify(schedules.map((s) => [s.nodeId, s.name]));
    if (sig === this.sig) return;
    this.sig = sig;
    const chosen = this.root.value;
    this.root.textContent = '';
    this.root.append(option('', 'All schedules'));
    const byName = [...schedules].sort((a, b) => a.name.localeCompare(b.name));
    for (const schedule of byName) this.root.append(option(schedule.nodeId, schedule.name));
    this.root.value = schedules.some((s) => s.nodeId === chosen) ? chosen : '';
  }

  /** The schedule chosen (its node id), or '' for all of them. */
  chosen(): string {
    return this.root.value;
  }

  /** The schedules to show. */
  apply(schedules: ScheduleView[]): ScheduleView[] {
    const chosen = this.root.value;
    return chosen ? schedules.filter((s) => s.nodeId === chosen) : schedules;
  }
}

/** The jobs to show: all, or those a node downstream of the chosen schedule follows. */
export function jobsOf<T extends { nodeId: string }>(jobs: T[], chosen: string): T[] {
  if (!chosen) return jobs;
  const reached = downstreamOf(chosen);
  return jobs.filter((j) => reached.has(j.nodeId));
}

function option(value: string, text: string): HTMLOptionElement {
  const node = el('option', '', text);
  node.value = value;
  return node;
}
