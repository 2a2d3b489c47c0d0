import { checkBaseUrl, UUID_PATTERN, UUID_RULE } from '../../lib/rules';
import { quietExampleImports } from './editor/example-import';
import { showInsecure } from './editor/insecure';
import { showSignIn, signIn, signOut } from './editor/sign-in';
import { testConnection } from './editor/test-connection';

interface ConfigNode extends EditorNodeInstance {
  workflowUrl: string;
  rejectUnauthorized?: boolean;
}

/** A setting's problem as the runtime words it, named by the label the dialog shows. */
function labelled(node: EditorNodeInstance, field: string, problem: string): string {
  const label = typeof node._ === 'function' ? node._(`media-spaces-config.label.${field}`) : field;
  return `${label} ${problem}`;
}

function urlRule(field: string, required: boolean) {
  return function (this: EditorNodeInstance, value: unknown, _opt?: unknown): boolean | string {
    const text = String(value ?? '');
    if (!required && text.trim() === '') return true;
    const checked = checkBaseUrl(text);
    return checked.ok || labelled(this, field, checked.problem);
  };
}

RED.nodes.registerType<ConfigNode>('media-spaces-config', {
  category: 'config',
  paletteLabel() {
    return this._('media-spaces-config.paletteLabel');
  },
  defaults: {
    name: { value: '' },
    workflowUrl: { value: '', validate: urlRule('workflowUrl', true) },
    liveCaptureUrl: { value: '', validate: urlRule('liveCaptureUrl', false) },
    spaceId: {
      value: '',
      validate(value: unknown, _opt?: unknown) {
        const text = String(value ?? '').trim();
        if (UUID_PATTERN.test(text)) return true;
        return labelled(this, 'spaceId', text === '' ? 'is required' : UUID_RULE);
      },
    },
    workflowPrefix: { value: '/workflow/v1' },
    timeout: { value: 30000, validate: RED.validators.number(true) },
    retries: { value: 3, validate: RED.validators.number(true) },
    rejectUnauthorized: { value: true },
  },
  credentials: {
    apiKey: { type: 'password' },
    accessToken: { type: 'password' },
    workflowToken: { type: 'password' },
    workflowTokenExpiresAt: { type: 'text' },
  },
  label() {
    return this.name || this.workflowUrl || this._('media-spaces-config.paletteLabel');
  },
  oneditprepare() {
    const node = this;
    if (node.rejectUnauthorized === undefined) $('#node-config-input-rejectUnauthorized').prop('checked', true);
    const refresh = () => showInsecure(node);
    $('#node-config-input-workflowUrl, #node-config-input-liveCaptureUrl').on('input change', refresh);
    $('#node-config-input-rejectUnauthorized').on('change', refresh);
    refresh();
    showSignIn(node);
    $('#node-config-media-spaces-signin').on('click', () => signIn(node));
    $('#node-config-media-spaces-signout').on('click', () => signOut(node));
    $('#node-config-media-spaces-test').on('click', function () {
      testConnection(node, $(this));
    });
  },
});

// once per editor: the examples share one server config node, and importing them asks nothing
quietExampleImports(RED);
