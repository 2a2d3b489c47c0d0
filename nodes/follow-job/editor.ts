import { DEFAULT_BACKOFF_MAX_MS, DEFAULT_CONCURRENCY, DEFAULT_INTERVAL_MS } from '../../lib/rules';
import { wholeNumberAtLeast } from '../shared/editor/poll-fields';

interface FollowJobNode extends EditorNodeInstance {
  interval: string;
  backoffMax: string;
  concurrency: string;
  timeout: string;
  coordination: string;
}

RED.nodes.registerType<FollowJobNode>('media-spaces-follow-job', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    server: { value: '', type: 'media-spaces-config', required: true },
    // inline, not spread: the catalogue's validator (node-red-dev) reads the defaults' keys from the source
    interval: { value: DEFAULT_INTERVAL_MS, required: true, validate: wholeNumberAtLeast(1, false) },
    backoffMax: { value: DEFAULT_BACKOFF_MAX_MS, validate: wholeNumberAtLeast(1, true) },
    concurrency: { value: DEFAULT_CONCURRENCY, validate: wholeNumberAtLeast(1, true) },
    timeout: { value: '', validate: wholeNumberAtLeast(0, true) },
    coordination: { value: '', type: 'media-spaces-coordination', required: false },
  },
  inputs: 1,
  outputs: 2,
  icon: 'media-spaces-follow-job.svg',
  paletteLabel: 'follow job',
  label() {
    return this.name || 'follow job';
  },
  labelStyle() {
    return this.name ? 'node_label_italic' : '';
  },
  inputLabels() {
    return this._('media-spaces-follow-job.inputs');
  },
  outputLabels(index) {
    return this._(`media-spaces-follow-job.outputs.${index + 1}`);
  },
});
