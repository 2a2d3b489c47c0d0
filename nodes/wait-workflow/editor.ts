import { DEFAULT_BACKOFF_MAX_MS, DEFAULT_INTERVAL_MS } from '../../lib/rules';
import { wholeNumberAtLeast } from '../shared/editor/poll-fields';

interface WaitWorkflowNode extends EditorNodeInstance {
  workflow: string;
}

RED.nodes.registerType<WaitWorkflowNode>('media-spaces-wait-workflow', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    server: { value: '', type: 'media-spaces-config', required: true },
    workflow: { value: '' },
    // inline, not spread: the catalogue's validator (node-red-dev) reads the defaults' keys from the source
    interval: { value: DEFAULT_INTERVAL_MS, required: true, validate: wholeNumberAtLeast(1, false) },
    backoffMax: { value: DEFAULT_BACKOFF_MAX_MS, validate: wholeNumberAtLeast(1, true) },
    timeout: { value: '', validate: wholeNumberAtLeast(0, true) },
  },
  inputs: 1,
  outputs: 1,
  icon: 'media-spaces-wait-workflow.svg',
  paletteLabel: 'wait for workflow',
  label() {
    if (this.name) return this.name;
    return this.workflow ? `wait for ${this.workflow}` : 'wait for workflow';
  },
  labelStyle() {
    return this.name ? 'node_label_italic' : '';
  },
  inputLabels() {
    return this._('media-spaces-wait-workflow.inputs');
  },
  outputLabels() {
    return this._('media-spaces-wait-workflow.outputs.1');
  },
});
