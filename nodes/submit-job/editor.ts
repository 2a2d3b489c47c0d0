import { takeOnlyConfigNodes } from '../shared/editor/config-choice';
import { type DialogDefaults, type FieldNode, fieldDefaults } from '../shared/editor/field-defaults';
import { firstInputProblem, knownInputs } from '../shared/editor/input-values';
import type { WorkflowPicker } from '../shared/editor/workflow-picker';
import { defaultType } from '../shared/fields';
import { prepareDialog } from './editor/dialog';
import { fedBySchedule } from './editor/from-schedule';
import { FIELDS } from './fields';

const field = fieldDefaults(FIELDS);

/** The dialog's workflow picker stops loading pages once the dialog closes. */
function stopPicker(node: EditorNodeInstance): void {
  const picker = node._workflowPicker as WorkflowPicker | undefined;
  picker?.stop();
  delete node._workflowPicker;
}

const typedInputValid = RED.validators.typedInput('jobInputsType');

/**
 * Inputs may be empty (a workflow that needs none, or everything from msg.payload). JSON inputs of a
 * workflow whose declared inputs this editor has seen are read as the node reads them, so a bad value
 * marks the node invalid before deploy.
 */
function validateJobInputs(this: EditorNodeInstance, v: unknown, opt?: unknown): boolean | string {
  if (v === '' || v === undefined || v === null) return true;
  const valid: boolean | string = typedInputValid.call(this, v, opt);
  if (valid !== true) return valid;
  if ((this.jobInputsType || defaultType(FIELDS.jobInputs)) !== 'json') return true;
  const workflow = !this.workflowIdType || this.workflowIdType === 'str' ? String(this.workflowId ?? '') : '';
  const declared = knownInputs[workflow];
  return (declared && firstInputProblem(String(v), declared, fedBySchedule(this.id))) || true;
}

RED.nodes.registerType<FieldNode<typeof FIELDS>>('media-spaces-submit-job', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    // every field of the table (written out key by key into the bundle by scripts/build-editor.mjs)
    ...field,
    // not "inputs": the editor keeps a node's input port count there
    jobInputs: { ...field.jobInputs, validate: validateJobInputs },
  } satisfies DialogDefaults<typeof FIELDS>,
  inputs: 1,
  outputs: 1,
  icon: 'media-spaces-submit.svg',
  onadd: takeOnlyConfigNodes(FIELDS),
  paletteLabel: 'submit job',
  label() {
    return this.name || this.workflowName || 'submit job';
  },
  labelStyle() {
    return this.name ? 'node_label_italic' : '';
  },
  oneditprepare() {
    $('#node-input-workflowId').typedInput({
      default: defaultType(FIELDS.workflowId),
      types: [...FIELDS.workflowId.types],
      typeField: '#node-input-workflowIdType',
    });
    $('#node-input-jobInputs').typedInput({
      default: defaultType(FIELDS.jobInputs),
      types: [...FIELDS.jobInputs.types],
      typeField: '#node-input-jobInputsType',
    });
    prepareDialog(this);
  },
  oneditsave() {
    // the label name belongs to a workflow picked from the list; a hand-typed id has none
    const id = $('#node-input-workflowId').typedInput('value');
    const chosen = $('#node-media-spaces-workflow-picker').attr('data-picked');
    if ($('#node-input-workflowIdType').val() !== 'str' || (id !== this.workflowId && id !== chosen)) {
      $('#node-input-workflowName').val('');
    }
    stopPicker(this);
  },
  oneditcancel() {
    stopPicker(this);
  },
});
