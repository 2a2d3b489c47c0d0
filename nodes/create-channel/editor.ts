import { UUID_PATTERN } from '../../lib/rules';
import { operationNode } from '../shared/editor/operation-node';

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

RED.nodes.registerType<CreateChannelNode>(
  'media-spaces-create-channel',
  operationNode<CreateChannelNode>({
    defaults: {
      channelName: { value: '' },
      description: { value: '' },
      sourceId: { value: '', validate: (v) => !v || UUID_PATTERN.test(String(v)) },
      expectedProperties: { value: '', validate: isJsonOrEmpty },
      continuousRecording: { value: '' },
      recordingDuration: { value: '', validate: (v) => v === '' || v === undefined || /^\d+$/.test(String(v)) },
      region: { value: '' },
      tags: { value: '' },
    },
    icon: 'media-spaces-channel.svg',
    paletteLabel: 'create channel',
    label() {
      return this.name || this.channelName || 'create channel';
    },
    oneditprepare() {
      $('#node-input-expectedProperties').typedInput({ default: 'json', types: ['json'] });
    },
  }),
);
