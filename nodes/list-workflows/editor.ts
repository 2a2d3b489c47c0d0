import { isMaxResults, WORKFLOW_STATUSES } from '../../lib/rules';
import { operationNode } from '../shared/editor/operation-node';
import { MODES } from './modes';

interface ListWorkflowsNode extends EditorNodeInstance {
  statusFilter: string;
  maxResults: string;
  mode: (typeof MODES)[number];
}

RED.nodes.registerType<ListWorkflowsNode>(
  'media-spaces-list-workflows',
  operationNode<ListWorkflowsNode>({
    defaults: {
      // not "status": the editor keeps the node's runtime status there
      statusFilter: { value: '' },
      maxResults: {
        value: '',
        validate: (v) => v === '' || v === undefined || (/^\d+$/.test(String(v)) && isMaxResults(Number(v))),
      },
      mode: { value: MODES[0] },
    },
    icon: 'media-spaces-list.svg',
    paletteLabel: 'list workflows',
    label() {
      if (this.name) return this.name;
      return this.statusFilter ? `${this.statusFilter} workflows` : 'list workflows';
    },
    outputLabels() {
      return this.mode === 'split' ? 'one workflow per message' : this.mode === 'page' ? 'one page' : 'all workflows';
    },
    oneditprepare() {
      const $status = $('#node-input-statusFilter');
      for (const status of WORKFLOW_STATUSES) $('<option>').val(status).text(status).appendTo($status);
      // the dialog set the value before the options existed
      $status.val(this.statusFilter ?? '');
    },
  }),
);
