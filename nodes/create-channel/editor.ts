import { UUID_PATTERN } from '../../lib/rules';

interface CreateChannelNode extends EditorNodeInstance {
  channelName: string;
}

function isJsonOrEmpty(value: unknown): boolean {
  if (!value) return true;
  try {
    JSON.parse(String(value));
    return true;
  } catch {
    return false;
  }
}

RED.nodes.registerType<CreateChannelNode>('media-spaces-create-channel', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    server: { value: '', type: 'media-spaces-config', required: true },
    channelName: { value: '' },
    description: { value: '' },
    sourceId: { value: '', validate: (v) => !v || UUID_PATTERN.test(String(v)) },
    expectedProperties: { value: '', validate: isJsonOrEmpty },
    continuousRecording: { value: '' },
    recordingDuration: { value: '', validate: (v) => v === '' || v === undefined || /^\d+$/.test(String(v)) },
    region: { value: '' },
    tags: { value: '' },
    // on for new nodes; the runtime treats a missing value as off (flows saved before it existed)
    watchState: { value: true },
  },
  inputs: 1,
  outputs: 2,
  icon: 'media-spaces-channel.svg',
  paletteLabel: 'create channel',
  label() {
    return this.name || this.channelName || 'create channel';
  },
  outputLabels(index) {
    return this._(`media-spaces-create-channel.outputs.${index === 0 ? 'created' : 'state'}`);
  },
  labelStyle() {
    return this.name ? 'node_label_italic' : '';
  },
  oneditprepare() {
    $('#node-input-expectedProperties').typedInput({ default: 'json', types: ['json'] });
  },
});
