import { takeAddedConfigNode } from '../shared/editor/config-choice';
import { type DialogDefaults, type FieldNode, fieldDefaults } from '../shared/editor/field-defaults';
import { settingName, settingProblem, translatorLookup } from '../shared/setting-name';
import { quietExampleImports } from './editor/example-import';
import { showInsecure } from './editor/insecure';
import { showSignIn, signIn, signOut } from './editor/sign-in';
import { testConnection } from './editor/test-connection';
import { FIELDS } from './fields';
import { spaceIdProblem, urlProblem } from './setting-checks';

const field = fieldDefaults(FIELDS);

/**
 * The validator of a setting the table reads as typed (Test connection tries
 * it as it is): `check` (setting-checks.ts, as the runtime words it), its
 * problem named by the label the dialog shows ("Workflow URL is required").
 */
function labelled(key: keyof typeof FIELDS, property: EditorNodeProperty, check: (text: string) => string | undefined) {
  return {
    ...property,
    validate(this: EditorNodeInstance, value: unknown, _opt?: unknown): boolean | string {
      const problem = check(String(value ?? ''));
      if (problem === undefined) return true;
      const lookup = translatorLookup(this._?.bind(this), 'media-spaces-config');
      return settingProblem(settingName(lookup, key, FIELDS[key]), problem);
    },
  };
}

RED.nodes.registerType<FieldNode<typeof FIELDS>>('media-spaces-config', {
  category: 'config',
  paletteLabel() {
    return this._('media-spaces-config.paletteLabel');
  },
  defaults: {
    name: { value: '' },
    // every field of the table (written out key by key into the bundle by scripts/build-editor.mjs)
    ...field,
    workflowUrl: labelled('workflowUrl', field.workflowUrl, (text) => urlProblem(text, true)),
    liveCaptureUrl: labelled('liveCaptureUrl', field.liveCaptureUrl, (text) => urlProblem(text, false)),
    spaceId: labelled('spaceId', field.spaceId, spaceIdProblem),
  } satisfies DialogDefaults<typeof FIELDS>,
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
// a node dropped while there was no server takes the one added later (in another node's dialog, or imported)
takeAddedConfigNode('media-spaces-config');
