import { takeOnlyConfigNodes } from '../shared/editor/config-choice';
import { type DialogDefaults, type FieldNode, fieldDefaults } from '../shared/editor/field-defaults';
import { defaultType } from '../shared/fields';
import { FIELDS } from './fields';

const field = fieldDefaults(FIELDS);

RED.nodes.registerType<FieldNode<typeof FIELDS>>('media-spaces-delete-event', {
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
  icon: 'media-spaces-delete.svg',
  paletteLabel: 'delete event',
  label() {
    if (this.name) return this.name;
    return this.eventIdType === 'str' && this.eventId ? `delete event ${this.eventId}` : 'delete event';
  },
  labelStyle() {
    return this.name ? 'node_label_italic' : '';
  },
  oneditprepare() {
    $('#node-input-eventId').typedInput({
      default: defaultType(FIELDS.eventId),
      types: [...FIELDS.eventId.types],
      typeField: '#node-input-eventIdType',
    });
  },
});
