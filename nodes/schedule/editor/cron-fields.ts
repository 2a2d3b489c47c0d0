import { cronSyntaxError } from '../../../lib/schedule/cron-syntax';
import { cronToForm, formToCron, WEEK } from './cron-form';
import { errorLine, fieldError, noteLine } from './field-error';

type Line = (text: string, top?: boolean) => JQuery;

const DAY_KEYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/**
 * When a window starts: days of the week and a start time that write the cron
 * expression, and the expression itself, still editable. The days and time
 * show any expression they can represent (one time a day on some weekdays);
 * for any other the form says "custom cron" and leaves the text in charge.
 */
export function cronFields(line: Line, label: (key: string) => string, cron: string, changed: () => void): void {
  const $days = line(label('window.days'));
  const boxes = WEEK.map((day) => {
    const $label = $('<label style="width: auto; margin-right: 8px"></label>').appendTo($days);
    const $box = $('<input type="checkbox" class="ms-w-day" style="width: auto; margin: 0 3px 0 0">')
      .attr('data-day', String(day))
      .appendTo($label);
    $('<span>')
      .text(label(`day.${DAY_KEYS[day]}`))
      .appendTo($label);
    return $box;
  });
  const $time = $('<input type="time" class="ms-w-time" style="width: 110px">').appendTo(line(label('window.time')));
  const $cronRow = line(label('window.cron'));
  const $cron = $('<input type="text" class="ms-w-cron" style="width: calc(100% - 110px)">')
    .attr('placeholder', '0 18 * * mon-fri')
    .val(cron)
    .appendTo($cronRow);
  const $note = noteLine('ms-w-cron-note', '').appendTo($cronRow);
  const $error = errorLine('ms-w-cron-error').appendTo($cronRow);

  const showForm = () => {
    const text = String($cron.val() ?? '').trim();
    const problem = cronSyntaxError(text);
    fieldError($cron, $error, problem);
    const form = problem ? null : cronToForm(text);
    for (const $box of boxes) {
      $box.prop('checked', Boolean(form?.days.includes(Number($box.attr('data-day')))));
      $box.prop('disabled', !form);
    }
    $time.val(form?.time ?? '').prop('disabled', !form);
    $note.text(form || problem ? '' : label('tip.customCron')).toggle(!form && !problem);
  };
  const fromForm = () => {
    const days = boxes.filter(($b) => $b.prop('checked')).map(($b) => Number($b.attr('data-day')));
    const time = String($time.val() ?? '');
    if (days.length === 0 || !/^\d{2}:\d{2}$/.test(time)) {
      fieldError($cron, $error, label(days.length === 0 ? 'error.noDays' : 'error.noTime'));
      return;
    }
    $cron.val(formToCron({ days, time }));
    fieldError($cron, $error, undefined);
    changed();
  };
  for (const $box of boxes) $box.on('change', fromForm);
  $time.on('change input', fromForm);
  $cron.on('change keyup input', () => {
    showForm();
    changed();
  });
  showForm();
}
