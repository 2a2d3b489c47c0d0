import { RECORDING_MEDIA } from '../../../lib/schedule/followup-media';
import type { WorkflowInputs } from '../../../lib/schemas';
import type { DeclaredInputs } from '../../submit-job/editor/declared';
import { buildForm, type InputsFormHost, type ShortInputs } from '../../submit-job/editor/form';
import { formValuesOf } from '../../submit-job/editor/inputs';
import { serverBody } from '../../submit-job/editor/server';
import { createWorkflowPicker, type WorkflowPage } from '../../submit-job/editor/workflow-picker';
import { errorLine, fieldError, noteLine } from './field-error';
import { FOLLOWUP_FIELDS, type ObjectBox, objectFields } from './template-fields';

/** What the follow-up forms of one dialog share: words, the server, and what was read through it. */
export interface FollowupShared {
  label(key: string): string;
  /** the submit-job dialog's words, for the picker they share */
  pickerText(key: string, values?: Record<string, unknown>): string;
  /** the config node's id chosen in the dialog */
  server(): unknown;
  /** whether the window list is the dialog's source (else nothing is read for it) */
  listShown(): boolean;
  declared: DeclaredInputs;
  fetchPage(body: Record<string, unknown>): PromiseLike<WorkflowPage>;
}

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

const INPUT_KINDS = ['variables', 'media_nicknames', 'attachments', 'labels'];

const isObject = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);
const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** A follow-up that names no workflow, by id or by name: the runtime refuses the schedule. */
export function missingWorkflow(followup: unknown): boolean {
  return isObject(followup) && blank(followup.workflow_id) && blank(followup.workflow);
}

const workflowOf = (followup: Doc | undefined): string =>
  typeof followup?.workflow_id === 'string' ? followup.workflow_id.trim() : '';

/** The follow-up's inputs (short form): what the inputs form shows. */
const inputsOf = (followup: Doc): Doc =>
  Object.fromEntries(INPUT_KINDS.filter((k) => followup[k] !== undefined).map((k) => [k, followup[k]]));

const same = (a: unknown, b: unknown) => String(a ?? '') === String(b ?? '');

/**
 * Writes what the form holds into the follow-up. Only the fields whose text changed are written:
 * a value the form shows another way (a number in the YAML, a list of files whose first it shows)
 * and inputs the workflow does not declare stay as the document has them.
 */
function mergeInputs(followup: Doc, form: ShortInputs, declared: WorkflowInputs): void {
  const before = formValuesOf(inputsOf(followup));
  const shown = before as unknown as Record<string, Record<string, unknown>>;
  const put = (kind: string, key: string) => {
    const now = form[kind]?.[key];
    if (same(now, shown[kind][key])) return;
    const map: Doc = isObject(followup[kind]) ? { ...followup[kind] } : {};
    if (now === undefined) delete map[key];
    else map[key] = now;
    if (Object.keys(map).length > 0) followup[kind] = map;
    else delete followup[kind];
  };
  for (const v of declared.variables ?? []) put('variables', v.name);
  for (const n of declared.media_nicknames ?? []) put('media_nicknames', n.identifier ?? '');
  for (const a of declared.attachments ?? []) put('attachments', a.identifier ?? '');
  for (const l of declared.labels ?? []) {
    const id = l.identifier ?? '';
    const labels: Doc = isObject(followup.labels) ? { ...followup.labels } : {};
    const params: Doc = isObject(labels[id]) ? { ...labels[id] } : {};
    for (const p of l.parameters ?? []) {
      const now = (form.labels?.[id] as Doc | undefined)?.[p.name];
      if (same(now, before.labels[id]?.[p.name])) continue;
      if (now === undefined) delete params[p.name];
      else params[p.name] = now;
    }
    // every declared label is written, as the submit-job form does: the service requires each
    labels[id] = params;
    followup.labels = labels;
  }
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

/**
 * A window's follow-up: the workflow chosen in submit job's picker, the job name, the workflow's
 * declared inputs in submit job's form (each a value or a template; media inputs offer the
 * recording's outputs by name), and the JSON box that holds the whole follow-up, which is what
 * the document gets. Everything written goes through that box, so a field of an older document
 * the form has no place for stays there.
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
  const box: ObjectBox = objectFields(
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
    () => {
      sync();
      changed();
    },
  );
  const $inputs = $('<div class="ms-w-fu-inputs">').hide().insertBefore(box.$jsonRow);
  const $hint = noteLine('ms-w-fu-hint', '').hide().insertBefore(box.$jsonRow);

  const check = () => {
    const followup = box.read();
    const missing = followup !== undefined && Object.keys(followup).length > 0 && missingWorkflow(followup);
    fieldError($p.$search, $p.$error, missing ? label('error.noWorkflow') : undefined);
  };

  const offered = () => RECORDING_MEDIA.filter((m) => m.offered(channel()));
  // what the form was built from: rebuilt only when these change, never under the user's typing
  let shown = { workflow: '', inputs: '', media: '' };
  const host = (declared: WorkflowInputs): InputsFormHost => ({
    $form: $inputs,
    read: () => inputsOf(box.read() ?? {}),
    write(form) {
      const followup = box.read();
      if (!followup) return; // the JSON box says what is wrong with it
      mergeInputs(followup, form, declared);
      box.write(followup);
      shown.inputs = JSON.stringify(inputsOf(followup));
      check();
      changed();
    },
    mediaChoices: offered().map((m) => ({ label: label(`media.${m.id}`), value: m.template })),
    templates: true,
  });
  const refreshForm = () => {
    const followup = box.read();
    const workflow = workflowOf(followup);
    shown = {
      workflow,
      inputs: JSON.stringify(inputsOf(followup ?? {})),
      media: offered()
        .map((m) => m.id)
        .join(),
    };
    $hint.text('').hide();
    if (!followup || !workflow || workflow.includes('{{')) {
      $inputs.empty().hide();
      return;
    }
    shared.declared.get(workflow).then((declared) => {
      if (workflow !== workflowOf(box.read())) return;
      if (!declared) {
        $inputs.empty().hide();
        $hint.text(label('followup.noInputs')).show();
        return;
      }
      buildForm(declared, host(declared));
      if ($inputs.children().length === 0) $hint.text(shared.pickerText('inputs.none')).show();
    });
  };

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
      if (!followup) return;
      const { workflow_id: _id, workflow: _name, ...rest } = followup;
      box.write({ workflow_id: w.id, ...rest });
      current = w.id;
      refreshForm();
      check();
      changed();
    },
  });
  sync = () => {
    const followup = box.read();
    const workflow = workflowOf(followup);
    if (workflow !== current) {
      current = workflow;
      picker.setCurrent(workflow);
    }
    if (followup && (workflow !== shown.workflow || JSON.stringify(inputsOf(followup)) !== shown.inputs)) {
      refreshForm();
    }
    check();
  };
  // nothing is read for a list hidden behind the YAML (switching to it usually rebuilds it from the YAML)
  let started = false;
  const start = () => {
    if (!shared.listShown()) return;
    started = true;
    picker.load(serverBody(shared.server()));
    refreshForm();
  };
  picker.setCurrent(current);
  start();
  check();
  return {
    reload: start,
    shown() {
      if (!started) start();
    },
    channelChanged() {
      const media = offered()
        .map((m) => m.id)
        .join();
      if (media !== shown.media) refreshForm();
    },
    stop() {
      picker.stop();
    },
  };
}
