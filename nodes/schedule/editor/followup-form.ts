import { serverBody } from '../../shared/editor/server-body';
import { createWorkflowPicker } from '../../shared/editor/workflow-picker';
import { errorLine, fieldError } from './field-error';
import { followupInputs, isObject, workflowOf } from './followup-inputs';
import { FOLLOWUP_FIELDS, type ObjectBox, objectFields } from './template-fields';
import type { FollowupShared } from './types';

/** A window's follow-up form, as the dialog reaches it. */
export interface FollowupForm {
  /** another server: list its workflows and read the inputs again */
  reload(): void;
  /** the list is shown: read what was not read while it was hidden */
  shown(): void;
  /** the window's channel settings changed: the recording's outputs offered may too */
  channelChanged(): void;
  /** the dialog closed */
  stop(): void;
}

type Line = (text: string, top?: boolean) => JQuery;
type Doc = Record<string, unknown>;

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** A follow-up that names no workflow, by id or by name: the runtime refuses the schedule. */
export function missingWorkflow(followup: unknown): boolean {
  return isObject(followup) && blank(followup.workflow_id) && blank(followup.workflow);
}

/** The picker's elements in a window's row (the submit-job dialog has them in its template). */
function pickerRow(line: Line, shared: FollowupShared) {
  const $row = line(shared.label('followup.workflow'), true);
  const $box = $('<div class="ms-w-fu-picker">')
    .css({ display: 'inline-block', width: 'calc(100% - 110px)', 'vertical-align': 'top' })
    .appendTo($row);
  const $search = $('<input type="search" class="ms-w-fu-search" autocomplete="off">')
    .attr('placeholder', shared.pickerText('label.search'))
    .css('width', '100%')
    .appendTo($box);
  const $error = errorLine('ms-w-fu-workflow-error').css('margin-left', '0').appendTo($box);
  const $allLabel = $('<label>').css({ width: 'auto', 'margin-top': '4px' }).appendTo($box);
  const $all = $('<input type="checkbox" class="ms-w-fu-all">')
    .css({ width: 'auto', margin: '0 4px 0 0' })
    .appendTo($allLabel);
  $('<span>').text(shared.pickerText('label.showAll')).appendTo($allLabel);
  const $list = $('<div class="ms-wf-list ms-w-fu-list" role="listbox">').css('height', '150px').appendTo($box);
  const $count = $('<div class="ms-w-fu-count">').css('font-size', '0.85em').appendTo($box);
  const $warning = $('<div class="ms-wf-warning ms-w-fu-warning" role="alert">')
    .css({ 'margin-top': '4px', color: 'var(--red-ui-text-color-error, #c00)' })
    .hide()
    .appendTo($box);
  return { $search, $error, $all, $list, $count, $warning };
}

/** The job name field and the JSON box that holds the whole follow-up. */
function followupBox(line: Line, label: (key: string) => string, value: unknown, changed: () => void): ObjectBox {
  return objectFields(
    line,
    label,
    {
      labels: 'followup',
      jsonCls: 'ms-w-followup',
      jsonLabel: label('window.followup'),
      placeholder: '{"workflow_id": "…", "variables": {"Name": "{{window.name}}"}}',
      fields: FOLLOWUP_FIELDS,
      value,
    },
    changed,
  );
}

/**
 * A window's follow-up: the workflow chosen in submit job's picker, the job name, the workflow's
 * declared inputs in submit job's form (followup-inputs.ts), and the JSON box that holds the whole
 * follow-up, which is what the document gets. Everything written goes through that box, so a field
 * of an older document the form has no place for stays there.
 */
export function followupForm(
  line: Line,
  shared: FollowupShared,
  value: unknown,
  channel: () => Doc,
  changed: () => void,
): FollowupForm {
  const { label } = shared;
  const $p = pickerRow(line, shared);
  let sync = () => {};
  const box = followupBox(line, label, value, () => {
    sync();
    changed();
  });
  const check = () => {
    const followup = box.read();
    const missing = followup !== undefined && Object.keys(followup).length > 0 && missingWorkflow(followup);
    fieldError($p.$search, $p.$error, missing ? label('error.noWorkflow') : undefined);
  };
  const inputs = followupInputs(box, shared, channel, () => {
    check();
    changed();
  });
  let current = workflowOf(box.read());
  const picker = createWorkflowPicker({
    search: $p.$search,
    showAll: $p.$all,
    list: $p.$list,
    count: $p.$count,
    warning: $p.$warning,
    text: shared.pickerText,
    fetchPage: shared.fetchPage,
    onPick: (w) => {
      const followup = box.read();
      if (!followup) return; // the JSON box says what is wrong with it
      const { workflow_id: _id, workflow: _name, ...rest } = followup;
      box.write({ workflow_id: w.id, ...rest });
      current = w.id;
      inputs.refresh();
      check();
      changed();
    },
  });
  sync = () => {
    const workflow = workflowOf(box.read());
    if (workflow !== current) {
      current = workflow;
      picker.setCurrent(workflow);
    }
    inputs.sync();
    check();
  };
  // nothing is read for a list hidden behind the YAML (switching to it usually rebuilds it from the YAML)
  let started = false;
  const start = () => {
    if (!shared.listShown()) return;
    started = true;
    picker.load(serverBody(shared.server()));
    inputs.refresh();
  };
  picker.setCurrent(current);
  start();
  check();
  return {
    reload: start,
    shown() {
      if (!started) start();
    },
    channelChanged: () => inputs.channelChanged(),
    stop: () => picker.stop(),
  };
}
