import { WORKFLOW_STATUSES } from '../../lib/rules';
import { takeOnlyConfigNodes } from '../shared/editor/config-choice';
import { type DialogDefaults, type FieldNode, fieldDefaults } from '../shared/editor/field-defaults';
import { FIELDS } from './fields';

const field = fieldDefaults(FIELDS);

RED.nodes.registerType<FieldNode<typeof FIELDS>>('media-spaces-list-workflows', {
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
  outputs: 1,
  icon: 'media-spaces-list.svg',
  paletteLabel: 'list workflows',
  label() {
    if (this.name) return this.name;
    return this.statusFilter ? `${this.statusFilter} workflows` : 'list workflows';
  },
  labelStyle() {
    return this.name ? 'node_label_italic' : '';
  },
  outputLabels() {
    return this.mode === 'split' ? 'one workflow per message' : this.mode === 'page' ? 'one page' : 'all workflows';
  },
  oneditprepare() {
    const $status = $('#node-input-statusFilter');
    for (const status of WORKFLOW_STATUSES) $('<option>').val(status).text(status).appendTo($status);
    // the dialog set the value before the options existed
    $status.val(this.statusFilter ?? '');
  },
});
