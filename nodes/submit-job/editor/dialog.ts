import type { WorkflowInputs } from '../../../lib/schemas';
import { adminErrorText, postAdmin } from '../../shared/editor/admin';
import { buildForm } from './form';
import { knownInputs, skeleton } from './inputs';
import { serverBody } from './server';

interface WorkflowOption {
  id: string;
  name?: string;
  status?: string;
}

const server = () => $('#node-input-server').val();
const currentWorkflow = () =>
  $('#node-input-workflowIdType').val() === 'str' ? String($('#node-input-workflowId').typedInput('value')) : '';

/** The dialog's workflow list, declared-inputs form and template button. */
export function prepareDialog(node: EditorNodeInstance): void {
  const $hint = $('#node-media-spaces-submit-hint');
  let declaredCache: Record<string, JQuery.Promise<WorkflowInputs | null>> = {};

  /** The chosen workflow's declared inputs, or null where the service does not describe them. */
  function declaredInputs(workflow: string): JQuery.Promise<WorkflowInputs | null> {
    const body = serverBody(server());
    if (!body || !workflow) return $.Deferred<WorkflowInputs | null>().resolve(null).promise();
    declaredCache[workflow] ??= postAdmin<{ inputs?: WorkflowInputs }>('workflow-inputs', { ...body, workflow }).then(
      (result) => {
        if (result.inputs) knownInputs[workflow] = result.inputs;
        return result.inputs ?? null;
      },
      (xhr: JQuery.jqXHR) => {
        delete declaredCache[workflow];
        // the workflow read is an extension; without it the JSON editor is all there is
        $hint.text(
          xhr.status === 404
            ? node._('media-spaces-submit-job.inputs.unsupported')
            : `${node._('media-spaces-submit-job.workflows.failed')} ${adminErrorText(xhr)}`,
        );
        return $.Deferred<WorkflowInputs | null>().resolve(null).promise();
      },
    );
    return declaredCache[workflow];
  }

  /** Shows the form for the chosen workflow's inputs (JSON Inputs only); hides it otherwise. */
  function refreshForm(): void {
    const $form = $('#node-media-spaces-inputs-form');
    const workflow = currentWorkflow();
    if (!workflow || $('#node-input-jobInputsType').val() !== 'json') {
      $form.empty().hide();
      return;
    }
    declaredInputs(workflow).then((declared) => {
      if (workflow !== currentWorkflow()) return;
      if (declared) buildForm(declared);
      else $form.empty().hide();
    });
  }

  const loadWorkflows = workflowList(node, $hint, refreshForm);
  $('#node-input-server').on('change', () => {
    declaredCache = {};
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
    declaredInputs(workflow).then((declared) => {
      if (!declared) return;
      $('#node-input-jobInputs').typedInput('type', 'json');
      $('#node-input-jobInputs').typedInput('value', JSON.stringify(skeleton(declared)));
      $hint.text(node._('media-spaces-submit-job.inputs.filled'));
      refreshForm();
    });
  });
  loadWorkflows();
  refreshForm();
}

/** The workflow dropdown: filled from the service, picking one sets the Workflow setting. */
function workflowList(node: EditorNodeInstance, $hint: JQuery, refreshForm: () => void): () => void {
  const $select = $('#node-media-spaces-workflow-select');
  let listRequest = 0;
  $select.on('change', () => {
    const id = $select.val();
    if (!id) return;
    $('#node-input-workflowId').typedInput('type', 'str');
    $('#node-input-workflowId').typedInput('value', String(id));
    $('#node-input-workflowName').val($select.find('option:selected').data('name') || '');
    refreshForm();
  });
  const load = () => {
    const body = serverBody(server());
    // the server select fires change while the dialog opens; only the latest answer fills the list
    const request = ++listRequest;
    $select.empty().append($('<option>').val('').text(node._('media-spaces-submit-job.workflows.choose')));
    if (!body) return;
    $hint.text(node._('media-spaces-submit-job.workflows.loading'));
    postAdmin<WorkflowOption[]>('workflows', body)
      .done((list) => {
        if (request !== listRequest) return;
        $hint.text('');
        for (const w of list) {
          const label = (w.name || w.id) + (w.status && w.status !== 'active' ? ` (${w.status})` : '');
          $('<option>')
            .val(w.id)
            .text(label)
            .data('name', w.name || '')
            .appendTo($select);
        }
        if ($('#node-input-workflowIdType').val() === 'str') $select.val(currentWorkflow());
      })
      .fail((xhr) => {
        if (request === listRequest) {
          $hint.text(`${node._('media-spaces-submit-job.workflows.failed')} ${adminErrorText(xhr)}`);
        }
      });
  };
  $('#node-media-spaces-workflow-refresh').on('click', load);
  return load;
}
