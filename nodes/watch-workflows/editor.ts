import { DEFAULT_BACKOFF_MAX_MS, DEFAULT_INTERVAL_MS, WORKFLOW_STATUSES } from '../../lib/rules';
import { wholeNumberAtLeast } from '../shared/editor/poll-fields';

interface WatchWorkflowsNode extends EditorNodeInstance {
  statusFilter: string;
  emitInitial: boolean;
}

const statuses: readonly string[] = WORKFLOW_STATUSES;

RED.nodes.registerType<WatchWorkflowsNode>('media-spaces-watch-workflows', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    server: { value: '', type: 'media-spaces-config', required: true },
    statusFilter: { value: '', validate: (v) => v === '' || v === undefined || statuses.includes(String(v)) },
    emitInitial: { value: false },
    // inline, not spread: the catalogue's validator (node-red-dev) reads the defaults' keys from the source
    interval: { value: DEFAULT_INTERVAL_MS, required: true, validate: wholeNumberAtLeast(1, false) },
    backoffMax: { value: DEFAULT_BACKOFF_MAX_MS, validate: wholeNumberAtLeast(1, true) },
  },
  inputs: 1,
  outputs: 2,
  icon: 'media-spaces-watch-workflows.svg',
  paletteLabel: 'watch workflows',
  label() {
    if (this.name) return this.name;
    return this.statusFilter ? `watch ${this.statusFilter} workflows` : 'watch workflows';
  },
  labelStyle() {
    return this.name ? 'node_label_italic' : '';
  },
  inputLabels() {
    return this._('media-spaces-watch-workflows.inputs');
  },
  outputLabels(index) {
    return this._(`media-spaces-watch-workflows.outputs.${index + 1}`);
  },
  oneditprepare() {
    // the statuses come from the library's list, so the select offers exactly what the runtime accepts
    const select = $('#node-input-statusFilter');
    for (const status of statuses) select.append($('<option>').val(status).text(status));
    select.val(this.statusFilter ?? '');
  },
});
