import { DEFAULT_CONCURRENCY } from '../../lib/rules';
import { pollTimingDefaults, timeoutDefault, wholeNumberAtLeast } from '../shared/editor/poll-fields';

interface FollowJobNode extends EditorNodeInstance {
  interval: string;
  backoffMax: string;
  concurrency: string;
  timeout: string;
}

RED.nodes.registerType<FollowJobNode>('media-spaces-follow-job', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    server: { value: '', type: 'media-spaces-config', required: true },
    ...pollTimingDefaults(),
    concurrency: { value: DEFAULT_CONCURRENCY, validate: wholeNumberAtLeast(1, true) },
    timeout: timeoutDefault(),
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
