import { INPUT_KINDS } from '../../../lib/rules';
import { RECORDING_MEDIA } from '../../../lib/schedule/followup-media';
import type { WorkflowInputs } from '../../../lib/schemas';
import { formValuesOf } from '../../shared/editor/input-values';
import { buildForm, type InputsFormHost, type ShortInputs } from '../../shared/editor/inputs-form';
import { noteLine } from './field-error';
import type { ObjectBox } from './template-fields';
import type { FollowupShared } from './types';

type Doc = Record<string, unknown>;

export const isObject = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The follow-up's workflow id ('' when it has none, or names its workflow by name). */
export const workflowOf = (followup: Doc | undefined): string =>
  typeof followup?.workflow_id === 'string' ? followup.workflow_id.trim() : '';

/** The follow-up's inputs (short form): what the inputs form shows. */
const inputsOf = (followup: Doc): Doc =>
  Object.fromEntries(INPUT_KINDS.filter((k) => followup[k] !== undefined).map((k) => [k, followup[k]]));

const same = (a: unknown, b: unknown) => String(a ?? '') === String(b ?? '');

/** A map of the follow-up with one key set, or removed when `now` is undefined. */
function withKey(map: unknown, key: string, now: unknown): Doc {
  const out: Doc = isObject(map) ? { ...map } : {};
  if (now === undefined) delete out[key];
  else out[key] = now;
  return out;
}

/**
 * Writes what the form holds into the follow-up. Only the fields whose text changed are written:
 * a value the form shows another way (a number in the YAML, a list of files whose first it shows)
 * and inputs the workflow does not declare stay as the document has them.
 */
function mergeInputs(followup: Doc, form: ShortInputs, declared: WorkflowInputs): void {
  const before = formValuesOf(inputsOf(followup));
  const put = (kind: 'variables' | 'media_nicknames' | 'attachments', key: string) => {
    const now = form[kind]?.[key];
    if (same(now, before[kind][key])) return;
    const map = withKey(followup[kind], key, now);
    if (Object.keys(map).length > 0) followup[kind] = map;
    else delete followup[kind];
  };
  for (const v of declared.variables ?? []) put('variables', v.name);
  for (const n of declared.media_nicknames ?? []) put('media_nicknames', n.identifier ?? '');
  for (const a of declared.attachments ?? []) put('attachments', a.identifier ?? '');
  for (const l of declared.labels ?? []) {
    const id = l.identifier ?? '';
    const labels: Doc = isObject(followup.labels) ? { ...followup.labels } : {};
    let params: Doc = isObject(labels[id]) ? labels[id] : {};
    for (const p of l.parameters ?? []) {
      const now = (form.labels?.[id] as Doc | undefined)?.[p.name];
      if (!same(now, before.labels[id]?.[p.name])) params = withKey(params, p.name, now);
    }
    // every declared label is written, as the submit-job form does: the service requires each
    labels[id] = params;
    followup.labels = labels;
  }
}

/** The follow-up's declared inputs as a form, above the JSON box it writes into. */
interface FollowupInputs {
  /** builds the form for the follow-up as it is now */
  refresh(): void;
  /** after an edit of the JSON box: rebuilt only when the edit changed what the form shows */
  sync(): void;
  /** the channel settings changed: rebuilt when the recording's outputs offered change */
  channelChanged(): void;
}

/**
 * Submit job's inputs form for the chosen workflow: each input a value or a template, media inputs
 * offering the recording's outputs by name. `written` hears each write into the box. The form is
 * rebuilt only when the workflow, the inputs or the outputs offered change, never under the typing.
 */
export function followupInputs(
  box: ObjectBox,
  shared: FollowupShared,
  channel: () => Doc,
  written: () => void,
): FollowupInputs {
  const $inputs = $('<div class="ms-w-fu-inputs">').hide().insertBefore(box.$jsonRow);
  const $hint = noteLine('ms-w-fu-hint', '').hide().insertBefore(box.$jsonRow);
  const offered = () => RECORDING_MEDIA.filter((m) => m.offered(channel()));
  const offeredIds = () =>
    offered()
      .map((m) => m.id)
      .join();
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
      written();
    },
    mediaChoices: offered().map((m) => ({ label: shared.label(`media.${m.id}`), value: m.template })),
    templates: true,
  });
  const refresh = () => {
    const followup = box.read();
    const workflow = workflowOf(followup);
    shown = { workflow, inputs: JSON.stringify(inputsOf(followup ?? {})), media: offeredIds() };
    $hint.text('').hide();
    if (!followup || !workflow || workflow.includes('{{')) {
      $inputs.empty().hide();
      return;
    }
    shared.declared.get(workflow).then((declared) => {
      if (workflow !== workflowOf(box.read())) return;
      if (!declared) {
        $inputs.empty().hide();
        $hint.text(shared.label('followup.noInputs')).show();
        return;
      }
      buildForm(declared, host(declared));
      if ($inputs.children().length === 0) $hint.text(shared.pickerText('inputs.none')).show();
    });
  };
  return {
    refresh,
    sync() {
      const followup = box.read();
      if (!followup) return;
      if (workflowOf(followup) !== shown.workflow || JSON.stringify(inputsOf(followup)) !== shown.inputs) refresh();
    },
    channelChanged() {
      if (offeredIds() !== shown.media) refresh();
    },
  };
}
