import { isMaxResults, WORKFLOW_STATUSES } from '../../lib/rules';
import { MODES } from './modes';

interface ListWorkflowsNode extends EditorNodeInstance {
  statusFilter: string;
  maxResults: string;
  mode: (typeof MODES)[number];
}

RED.nodes.registerType<ListWorkflowsNode>('media-spaces-list-workflows', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    server: { value: '', type: 'media-spaces-config', required: true },
    // not "status": the editor keeps the node's runtime status there
    statusFilter: { value: '' },
    maxResults: {
      value: '',
      validate: (v) => v === '' || v === undefined || (/^\d+$/.test(String(v)) && isMaxResults(Number(v))),
    },
    mode: { value: MODES[0] },
  },
  inputs: 1,
  outputs: 1,
  icon: 'media-spaces-list.svg',
  paletteLabel: 'list workflows',
  label() {
    if (this.name) return this.name;
    return this.statusFilter ? `${this.statusFilter} workflows` : 'list workflows';
  },
  labelStyle() {
    return this.name ? 'node_label_italic' : '';
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
});
