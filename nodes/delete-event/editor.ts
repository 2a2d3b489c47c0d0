import { operationNode } from '../shared/editor/operation-node';

interface DeleteEventNode extends EditorNodeInstance {
  eventId: string;
  eventIdType: string;
}

RED.nodes.registerType<DeleteEventNode>(
  'media-spaces-delete-event',
  operationNode<DeleteEventNode>({
    defaults: {
      eventId: { value: 'event_id', validate: RED.validators.typedInput('eventIdType') },
      eventIdType: { value: 'msg' },
    },
    icon: 'media-spaces-delete.svg',
    paletteLabel: 'delete event',
    label() {
      if (this.name) return this.name;
      return this.eventIdType === 'str' && this.eventId ? `delete event ${this.eventId}` : 'delete event';
    },
    oneditprepare() {
      $('#node-input-eventId').typedInput({
        default: 'msg',
        types: ['str', 'msg', 'flow', 'global', 'env'],
        typeField: '#node-input-eventIdType',
      });
    },
  }),
);
