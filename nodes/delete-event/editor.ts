interface DeleteEventNode extends EditorNodeInstance {
  eventId: string;
  eventIdType: string;
}

RED.nodes.registerType<DeleteEventNode>('media-spaces-delete-event', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    server: { value: '', type: 'media-spaces-config', required: true },
    eventId: { value: 'event_id', validate: RED.validators.typedInput('eventIdType') },
    eventIdType: { value: 'msg' },
  },
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
      default: 'msg',
      types: ['str', 'msg', 'flow', 'global', 'env'],
      typeField: '#node-input-eventIdType',
    });
  },
});
