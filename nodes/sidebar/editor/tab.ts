import { ACTIVITY_TOPIC, type ActivitySignal, type ActivitySnapshot } from '../activity-types';
import { AsRunView } from './as-run';
import { confirmAndAct } from './confirm';
import { el, setText } from './dom';
import { InFlight } from './inflight';
import { type Part, Refresher } from './refresher';
import { jobsOf, ScheduleFilter } from './schedule-filter';
import { Timeline, VIEWS, type ViewName } from './timeline';

const TAB_ID = 'media-spaces';
const HOUR_MS = 3_600_000;
const READ = 'media-spaces.read';
const NO_PERMISSION = 'No permission: your user lacks media-spaces.read.';

/** The "Media Spaces" sidebar tab: timeline, in-flight list, live from the runtime's signals. */
export function createTab(): void {
  const content = el('div', 'ms-sidebar');
  const toolbar = el('div', 'ms-toolbar');
  const message = el('div', 'ms-message');
  const reveal = (nodeId: string) => RED.view.reveal(nodeId);
  const timeline = new Timeline({
    reveal,
    act: (schedule, action) =>
      confirmAndAct(schedule, action, timeline.now(), aheadHours(), (wire) => refresher.accept(wire)),
  });
  const inflight = new InFlight(reveal, workflowName);
  const body = el('div', 'ms-body');
  body.append(el('div', 'ms-heading', 'Timeline'), timeline.root, inflight.root);
  // the toolbar's schedule filter is the As-run view's too
  const asRun = new AsRunView(() => filter.chosen());
  content.append(toolbar, message, body, asRun.root);
  // the route sends the planned starts the view shows: a longer view fetches them
  const aheadHours = () => VIEWS[timeline.currentView].ahead / HOUR_MS;
  viewButtons(toolbar, timeline, () => refresher.viewChanged());
  asRunButton(toolbar, content, asRun);
  const filter = new ScheduleFilter(() => {
    view.refilter();
    if (content.classList.contains('ms-show-asrun')) asRun.load();
  });
  toolbar.append(filter.root);

  const view = renderer(content, message, timeline, inflight, filter);
  const apply = view.apply;
  const refresher = new Refresher(
    apply,
    (refusal) => {
      const denied = refusal.status === 401 || refusal.status === 403;
      content.classList.toggle('ms-denied', denied);
      setText(message, denied ? NO_PERMISSION : `Activity unavailable: ${refusal.message}`);
    },
    aheadHours,
  );

  RED.sidebar.addTab({
    id: TAB_ID,
    label: 'Media Spaces',
    name: 'Media Spaces',
    iconClass: 'fa fa-television',
    content,
    // an operator keeps it open all day: its button stays in the sidebar header
    pinned: true,
    enableOnEdit: true,
    action: 'media-spaces:show-sidebar',
  });
  RED.actions.add('media-spaces:show-sidebar', () => RED.sidebar.show(TAB_ID));

  if (RED.user?.hasPermission?.(READ) === false) {
    content.classList.add('ms-denied');
    setText(message, NO_PERMISSION);
    return;
  }
  RED.comms.subscribe(ACTIVITY_TOPIC, (_topic, payload) => refresher.signal(payload as ActivitySignal));
  refresher.signal();
  // the clock moves even when nothing reports: the now line, remaining times, and slots changing phase
  setInterval(() => {
    timeline.tick();
    inflight.tick(timeline.now());
  }, 5_000);
  setInterval(() => refresher.signal(), 60_000);
}

/** A workflow's name as a node on the canvas holds it (the picker keeps the chosen workflow's name). */
function workflowName(workflowId: string): string | undefined {
  let name: string | undefined;
  RED.nodes.eachNode((node) => {
    if (node.workflowId !== workflowId || typeof node.workflowName !== 'string' || !node.workflowName) return true;
    name = node.workflowName;
    return false;
  });
  return name;
}

function viewButtons(toolbar: HTMLElement, timeline: Timeline, changed: () => void): void {
  const show = (view: ViewName) => {
    for (const b of toolbar.querySelectorAll<HTMLElement>('.ms-view')) {
      b.classList.toggle('selected', b.dataset.view === view);
    }
    timeline.setView(view);
  };
  for (const view of Object.keys(VIEWS) as ViewName[]) {
    const button = el('button', 'red-ui-button red-ui-button-small ms-view', view.replace(/(\d+)/, '$1 '));
    button.type = 'button';
    button.dataset.view = view;
    button.addEventListener('click', () => {
      show(view);
      changed();
    });
    toolbar.append(button);
  }
  show('24h');
}

/** Switches between the live activity and the as-run log of a day (read afresh each time it is shown). */
function asRunButton(toolbar: HTMLElement, content: HTMLElement, asRun: AsRunView): void {
  const button = el('button', 'red-ui-button red-ui-button-small ms-asrun-toggle', 'As-run');
  button.type = 'button';
  button.addEventListener('click', () => {
    const showing = content.classList.toggle('ms-show-asrun');
    button.classList.toggle('selected', showing);
    if (showing) asRun.load();
  });
  toolbar.append(button);
}

/**
 * Applies a fetched state, its schedules through the filter; times itself on the element (read by the
 * browser tests' scale measurements). `refilter` shows the last schedules again after the filter changed.
 */
function renderer(
  content: HTMLElement,
  message: HTMLElement,
  timeline: Timeline,
  inflight: InFlight,
  filter: ScheduleFilter,
) {
  const createdAt = performance.now();
  let renders = 0;
  let schedules: ActivitySnapshot | undefined;
  let jobs: ActivitySnapshot | undefined;
  const showJobs = (snapshot: ActivitySnapshot) => inflight.updateJobs(jobsOf(snapshot.jobs, filter.chosen()));
  const showSchedules = (snapshot: ActivitySnapshot) => {
    filter.update(snapshot.schedules);
    const shown = filter.apply(snapshot.schedules);
    timeline.render(shown === snapshot.schedules ? snapshot : { ...snapshot, schedules: shown });
    inflight.updateSchedules(shown, timeline.now());
  };
  /** how many of each part the runtime has, once it said */
  const counts = new Map<Part, number>();
  const apply = (snapshot: ActivitySnapshot, part: Part) => {
    const started = performance.now();
    if (part === 'schedules') {
      schedules = snapshot;
      showSchedules(snapshot);
    } else {
      jobs = snapshot;
      showJobs(snapshot);
    }
    counts.set(part, part === 'schedules' ? snapshot.schedules.length : snapshot.jobs.length);
    renders += 1;
    if (renders === 1) {
      content.dataset.firstShownMs = (performance.now() - createdAt).toFixed(1);
      content.dataset.firstRenderMs = (performance.now() - started).toFixed(1);
    }
    content.dataset.renders = String(renders);
    content.dataset.lastRenderMs = (performance.now() - started).toFixed(2);
    content.dataset.lastPart = part;
    content.classList.remove('ms-denied');
    const empty = counts.get('schedules') === 0 && counts.get('jobs') === 0;
    setText(message, empty ? 'Nothing deployed reports here yet.' : '');
  };
  return {
    apply,
    refilter: () => {
      if (schedules) showSchedules(schedules);
      if (jobs) showJobs(jobs);
    },
  };
}
