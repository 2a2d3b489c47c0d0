import {
  ACTIVITY_TOPIC,
  type ActionName,
  type ActivitySignal,
  type ActivitySnapshot,
  type ScheduleView,
} from '../activity-types';
import { postAction } from './api';
import { el, setText } from './dom';
import { InFlight } from './inflight';
import { Refresher } from './refresher';
import { Timeline, VIEWS, type ViewName } from './timeline';

export const TAB_ID = 'media-spaces';
const READ = 'media-spaces.read';
const CONFIRM: Record<ActionName, (name: string) => string> = {
  pause: (n) => `Pause the schedule "${n}"? No window starts until it is resumed.`,
  resume: (n) => `Resume the schedule "${n}"?`,
  start: (n) => `Start the next window of "${n}" now?`,
  skip: (n) => `Skip the next window of "${n}"?`,
};

/** The "Media Spaces" sidebar tab: timeline, in-flight list, live from the runtime's signals. */
export function createTab(): void {
  const content = el('div', 'ms-sidebar');
  const toolbar = el('div', 'ms-toolbar');
  const message = el('div', 'ms-message');
  const reveal = (nodeId: string) => RED.view.reveal(nodeId);
  const timeline = new Timeline({ reveal, act: (schedule, action) => confirmAction(schedule, action) });
  const inflight = new InFlight(reveal);
  const body = el('div', 'ms-body');
  body.append(el('div', 'ms-heading', 'Timeline'), timeline.root, inflight.root);
  content.append(toolbar, message, body);

  for (const view of Object.keys(VIEWS) as ViewName[]) {
    const button = el('button', 'red-ui-button red-ui-button-small ms-view', view.replace(/(\d+)/, '$1 '));
    button.type = 'button';
    button.dataset.view = view;
    button.addEventListener('click', () => showView(view));
    toolbar.append(button);
  }
  const showView = (view: ViewName) => {
    for (const b of toolbar.querySelectorAll<HTMLElement>('.ms-view'))
      b.classList.toggle('selected', b.dataset.view === view);
    timeline.setView(view);
  };
  showView('24h');

  // timings on the element, for the scale measurements of the browser tests
  const createdAt = performance.now();
  let renders = 0;
  const apply = (snapshot: ActivitySnapshot, part: 'all' | 'jobs') => {
    const started = performance.now();
    if (part === 'all') {
      timeline.render(snapshot);
      inflight.updateSchedules(snapshot.schedules, timeline.now());
    }
    inflight.updateJobs(snapshot.jobs);
    renders += 1;
    if (renders === 1) {
      content.dataset.firstShownMs = (performance.now() - createdAt).toFixed(1);
      content.dataset.firstRenderMs = (performance.now() - started).toFixed(1);
    }
    content.dataset.renders = String(renders);
    content.dataset.lastRenderMs = (performance.now() - started).toFixed(2);
    content.dataset.lastPart = part;
    content.classList.remove('ms-denied');
    setText(
      message,
      snapshot.schedules.length || snapshot.jobs.length || part === 'jobs' ? '' : 'Nothing deployed reports here yet.',
    );
  };
  const refresher = new Refresher(apply, (refusal) => {
    const denied = refusal.status === 401 || refusal.status === 403;
    content.classList.toggle('ms-denied', denied);
    setText(
      message,
      denied ? 'No permission: your user lacks media-spaces.read.' : `Activity unavailable: ${refusal.message}`,
    );
  });

  const confirmAction = (schedule: ScheduleView, action: ActionName) => {
    const dialog = RED.notify(CONFIRM[action](schedule.name), {
      modal: true,
      fixed: true,
      type: 'warning',
      buttons: [
        { text: 'Cancel', click: () => dialog?.close() },
        {
          text:
            action === 'start' ? 'Start now' : action === 'skip' ? 'Skip' : action[0].toUpperCase() + action.slice(1),
          class: 'primary ms-confirm',
          click: () => {
            dialog?.close();
            postAction(schedule.nodeId, action).then((result) => {
              if (result.ok) refresher.accept(result.snapshot);
              else
                RED.notify(
                  `Could not ${action} "${schedule.name}": ${result.status === 403 ? 'no permission (media-spaces.write)' : result.message}`,
                  'error',
                );
            });
          },
        },
      ],
    });
  };

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
    setText(message, 'No permission: your user lacks media-spaces.read.');
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
