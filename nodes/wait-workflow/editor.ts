import { takeOnlyConfigNodes } from '../shared/editor/config-choice';
import { type DialogDefaults, type FieldNode, fieldDefaults } from '../shared/editor/field-defaults';
import { FIELDS } from './fields';

const field = fieldDefaults(FIELDS);

RED.nodes.registerType<FieldNode<typeof FIELDS>>('media-spaces-wait-workflow', {
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
