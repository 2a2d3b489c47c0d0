import { adminErrorText } from '../../shared/editor/admin';
import { declaredInputsLoader } from '../../shared/editor/declared-inputs';
import { buildForm } from '../../shared/editor/inputs-form';
import { serverBody } from '../../shared/editor/server-body';
import { createWorkflowPicker, type WorkflowPicker } from '../../shared/editor/workflow-picker';
import { fillInputs } from './fill';
import { fedBySchedule } from './from-schedule';
import { submitJobForm } from './inputs-host';

const server = () => $('#node-input-server').val();
const currentWorkflow = () =>
  $('#node-input-workflowIdType').val() === 'str' ? String($('#node-input-workflowId').typedInput('value')) : '';

/** The dialog's workflow list, declared-inputs form and template button. */
export function prepareDialog(node: EditorNodeInstance): void {
  const $hint = $('#node-media-spaces-submit-hint');
  /** the hint says a read failed: the next read that succeeds takes it away, before any other hint */
  let readFailureShown = false;
  const declared = declaredInputsLoader(
    server,
    (xhr) => {
      // the workflow read is an extension; without it the JSON editor is all there is
      $hint.text(
        xhr.status === 404
          ? node._('media-spaces-submit-job.inputs.unsupported')
          : `${node._('media-spaces-submit-job.inputs.failed')} ${adminErrorText(xhr)}`,
      );
      readFailureShown = xhr.status !== 404;
    },
    () => {
      if (!readFailureShown) return;
      readFailureShown = false;
      $hint.text('');
    },
  );

  /** Shows the form for the chosen workflow's inputs (JSON Inputs only); hides it otherwise. */
  function refreshForm(): void {
    const $form = $('#node-media-spaces-inputs-form');
    const workflow = currentWorkflow();
    if (!workflow || $('#node-input-jobInputsType').val() !== 'json') {
      $form.empty().hide();
      return;
    }
    declared.get(workflow).then((inputs) => {
      if (workflow !== currentWorkflow()) return;
      const fed = fedBySchedule(node.id) ? node._('media-spaces-submit-job.inputs.fromSchedule') : undefined;
      if (inputs) buildForm(inputs, submitJobForm(fed));
      else $form.empty().hide();
    });
  }

  const picker = workflowPicker(node, refreshForm);
  node._workflowPicker = picker;
  const loadWorkflows = () => picker.load(serverBody(server()));
  $('#node-media-spaces-workflow-refresh').on('click', loadWorkflows);
  // the server select fires change while the dialog opens too: only another server, or the same one
  // with edited settings, reloads
  const settingsKey = () => JSON.stringify(serverBody(server()));
  let loadedFor: string | undefined;
  $('#node-input-server').on('change', () => {
    if (settingsKey() === loadedFor) return;
    loadedFor = settingsKey();
    declared.forget();
    loadWorkflows();
    refreshForm();
  });
  // the form exists only for JSON inputs; the form's own writes change the value, not the type
  let inputsType = $('#node-input-jobInputsType').val();
  $('#node-input-jobInputs').on('change', () => {
    if ($('#node-input-jobInputsType').val() === inputsType) return;
    inputsType = $('#node-input-jobInputsType').val();
    refreshForm();
  });
  $('#node-media-spaces-inputs-template').on('click', () => {
    const workflow = currentWorkflow();
    if (!serverBody(server()) || !workflow) {
      $hint.text(node._('media-spaces-submit-job.inputs.needWorkflow'));
      return;
    }
    declared.get(workflow).then((inputs) => {
      if (inputs) fillInputs(node, inputs, refreshForm);
    });
  });
  if (loadedFor === undefined) {
    loadedFor = settingsKey();
    loadWorkflows();
  }
  refreshForm();
}

/** The searchable workflow picker: picking one sets the Workflow setting (a str typed input) and its name. */
function workflowPicker(node: EditorNodeInstance, refreshForm: () => void): WorkflowPicker {
  const $root = $('#node-media-spaces-workflow-picker');
  const picker = createWorkflowPicker({
    search: $('#node-media-spaces-workflow-search'),
    showAll: $('#node-media-spaces-workflow-all'),
    list: $('#node-media-spaces-workflow-list'),
    count: $('#node-media-spaces-workflow-count'),
    warning: $('#node-media-spaces-workflow-warning'),
    text: (key, values) => node._(`media-spaces-submit-job.${key}`, values),
    onPick: (w) => {
      $('#node-input-workflowId').typedInput('type', 'str');
      $('#node-input-workflowId').typedInput('value', w.id);
      $('#node-input-workflowName').val(w.name);
      $root.attr('data-picked', w.id);
      refreshForm();
    },
  });
  picker.setCurrent(currentWorkflow());
  return picker;
}
