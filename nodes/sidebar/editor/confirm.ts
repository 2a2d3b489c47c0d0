import { noticeText } from '../../shared/editor/as-text';
import type { ActionName, ActivitySnapshot, ScheduleView } from '../activity-types';
import { postAction } from './api';

const QUESTIONS: Record<ActionName, (name: string) => string> = {
  pause: (n) => `Pause the schedule "${n}"? No window starts until it is resumed.`,
  resume: (n) => `Resume the schedule "${n}"?`,
  start: (n) => `Start the next window of "${n}" now?`,
  skip: (n) => `Skip the next window of "${n}"?`,
};
const BUTTONS: Record<ActionName, string> = { pause: 'Pause', resume: 'Resume', start: 'Start now', skip: 'Skip' };

/**
 * Asks before acting on a schedule (a modal notification, Node-RED's own
 * confirm), then calls the runtime; a refusal is shown as an error. The
 * schedule's name and the runtime's reason go in as text.
 */
export function confirmAndAct(
  schedule: ScheduleView,
  action: ActionName,
  done: (snapshot: ActivitySnapshot) => void,
): void {
  const dialog = RED.notify(noticeText(QUESTIONS[action](schedule.name)), {
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
          postAction(schedule.nodeId, action).then((result) => {
            if (result.ok) {
              done(result.snapshot);
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
