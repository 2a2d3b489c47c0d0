import type { WorkflowInputs } from '../../../lib/schemas';
import { type InputsMerge, mergeInputs } from '../../shared/editor/input-values';

const t = (node: EditorNodeInstance, key: string, values?: Record<string, unknown>) =>
  node._(`media-spaces-submit-job.fill.${key}`, values);

function write(value: Record<string, Record<string, unknown>>): void {
  $('#node-input-jobInputs').typedInput('type', 'json');
  $('#node-input-jobInputs').typedInput('value', JSON.stringify(value));
}

/** The question, in plain elements (the notification renders strings as HTML; input names are user text). */
function question(node: EditorNodeInstance, merge: InputsMerge, reference: string | null): JQuery {
  const $box = $('<div class="ms-fill-question">');
  $('<p>').text(t(node, 'title')).appendTo($box);
  const list = (key: string, names: string[]) => {
    if (names.length === 0) return;
    $('<p>').text(t(node, key)).appendTo($box);
    const $ul = $('<ul>').appendTo($box);
    for (const n of names) $('<li>').text(n).appendTo($ul);
  };
  if (reference)
    $('<p>')
      .text(t(node, 'reference', { reference }))
      .appendTo($box);
  list('differing', merge.differing);
  list('undeclared', merge.undeclared);
  return $box;
}

/**
 * "Fill inputs from the workflow": the user's values for inputs the workflow
 * still declares are kept and its other inputs added with their defaults;
 * before anything the user typed would be lost or reset (a value other than
 * the default, an input the workflow no longer declares, a msg/flow/env
 * reference), a dialog asks: merge, reset to the defaults, or cancel.
 */
export function fillInputs(node: EditorNodeInstance, declared: WorkflowInputs, done: () => void): void {
  const $hint = $('#node-media-spaces-submit-hint');
  const type = String($('#node-input-jobInputsType').val() || 'json');
  const value = String($('#node-input-jobInputs').typedInput('value') ?? '');
  const reference = type !== 'json' && value !== '' ? `${type}.${value}` : null;
  const merge = mergeInputs(type === 'json' ? value : '', declared);
  const apply = (chosen: Record<string, Record<string, unknown>>, key: string) => {
    write(chosen);
    $hint.text(t(node, key, { added: merge.added, kept: merge.differing.length }));
    done();
  };
  if (!reference && merge.differing.length === 0 && merge.undeclared.length === 0) {
    apply(merge.merged, 'merged');
    return;
  }
  const notice = RED.notify(question(node, merge, reference), {
    modal: true,
    fixed: true,
    type: 'warning',
    buttons: [
      {
        id: 'node-media-spaces-fill-cancel',
        text: t(node, 'cancel'),
        click: () => notice?.close(),
      },
      {
        id: 'node-media-spaces-fill-reset',
        text: t(node, 'reset'),
        click: () => {
          notice?.close();
          apply(merge.defaults, 'wasReset');
        },
      },
      {
        id: 'node-media-spaces-fill-merge',
        class: 'primary',
        text: t(node, 'merge'),
        click: () => {
          notice?.close();
          apply(merge.merged, 'merged');
        },
      },
    ],
  });
}
