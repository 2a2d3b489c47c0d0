import { checkBaseUrl, UUID_PATTERN } from '../../lib/rules';
import { showInsecure } from './editor/insecure';
import { testConnection } from './editor/test-connection';

interface ConfigNode extends EditorNodeInstance {
  workflowUrl: string;
  rejectUnauthorized?: boolean;
}

const isUrl = (v: unknown) => checkBaseUrl(String(v ?? '')).ok;

RED.nodes.registerType<ConfigNode>('media-spaces-config', {
  category: 'config',
  defaults: {
    name: { value: '' },
    workflowUrl: { value: '', required: true, validate: isUrl },
    liveCaptureUrl: { value: '', validate: (v) => !v || isUrl(v) },
    spaceId: { value: '', required: true, validate: (v) => UUID_PATTERN.test(String(v ?? '')) },
    workflowPrefix: { value: '/workflow/v1' },
    timeout: { value: 30000, validate: RED.validators.number(true) },
    retries: { value: 3, validate: RED.validators.number(true) },
    rejectUnauthorized: { value: true },
  },
  credentials: {
    apiKey: { type: 'password' },
    accessToken: { type: 'password' },
  },
  label() {
    return this.name || this.workflowUrl || 'media spaces';
  },
  oneditprepare() {
    const node = this;
    if (node.rejectUnauthorized === undefined) $('#node-config-input-rejectUnauthorized').prop('checked', true);
    const refresh = () => showInsecure(node);
    $('#node-config-input-workflowUrl, #node-config-input-liveCaptureUrl').on('input change', refresh);
    $('#node-config-input-rejectUnauthorized').on('change', refresh);
    refresh();
    $('#node-config-media-spaces-test').on('click', function () {
      testConnection(node, $(this));
    });
  },
});
