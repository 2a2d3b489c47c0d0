import type { ActionName, ScheduleView } from '../activity-types';
import type { WireSnapshot } from '../activity-wire';
import { postAction } from './api';
import { noticeText } from './as-text';
import { question } from './questions';

const BUTTONS: Record<ActionName, string> = { pause: 'Pause', resume: 'Resume', start: 'Start now', skip: 'Skip' };

/**
 * Asks before acting on a schedule (a modal notification, Node-RED's own
 * confirm), then calls the runtime; a refusal is shown as an error. The
 * schedule's name and the runtime's reason go in as text.
 */
export function confirmAndAct(
  schedule: ScheduleView,
  action: ActionName,
  now: number,
  /** hours of planned starts the answer brings (the timeline's view) */
  ahead: number,
  done: (wire: WireSnapshot) => void,
): void {
  const dialog = RED.notify(noticeText(question(schedule, action, now)), {
    modal: true,
    fixed: true,
    type: 'warning',
    buttons: [
      { text: 'Cancel', click: () => dialog?.close() },
      {
        text: BUTTONS[action],
        class: 'primary ms-confirm',
        click: () => {
          dialog?.close();
          postAction(schedule.nodeId, action, ahead).then((result) => {
            if (result.ok) {
              if ('wire' in result) done(result.wire);
              return;
            }
            const why = result.status === 403 ? 'no permission (media-spaces.write)' : result.message;
            RED.notify(noticeText(`Could not ${action} "${schedule.name}": ${why}`), 'error');
          });
        },
      },
    ],
  });
}
