import { takeOnlyConfigNodes } from '../shared/editor/config-choice';
import { type DialogDefaults, type FieldNode, fieldDefaults } from '../shared/editor/field-defaults';
import { FIELDS } from './fields';

const field = fieldDefaults(FIELDS);

RED.nodes.registerType<FieldNode<typeof FIELDS>>('media-spaces-follow-job', {
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
