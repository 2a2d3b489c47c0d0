import { WORKFLOW_STATUSES } from '../../lib/rules';
import { takeOnlyConfigNodes } from '../shared/editor/config-choice';
import { type DialogDefaults, type FieldNode, fieldDefaults } from '../shared/editor/field-defaults';
import { FIELDS } from './fields';

const field = fieldDefaults(FIELDS);
const statuses: readonly string[] = WORKFLOW_STATUSES;

RED.nodes.registerType<FieldNode<typeof FIELDS>>('media-spaces-watch-workflows', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    // every field of the table (written out key by key into the bundle by scripts/build-editor.mjs)
    ...field,
  } satisfies DialogDefaults<typeof FIELDS>,
  // a new node takes the only server there is
  onadd: takeOnlyConfigNodes(FIELDS),
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
