/**
 * What every operation node's editor definition shares: the palette category
 * and colour, a name, the config node, one input and one output, and the
 * italic label once named. Each editor adds its own settings and texts.
 */
export function operationNode<T extends EditorNodeInstance>(
  definition: Omit<EditorNodeDefinition<T>, 'category'> & { defaults: Record<string, EditorNodeProperty> },
): EditorNodeDefinition<T> {
  return {
    category: 'media spaces',
    color: '#8FBCE6',
    inputs: 1,
    outputs: 1,
    labelStyle(this: T) {
      return this.name ? 'node_label_italic' : '';
    },
    ...definition,
    defaults: {
      name: { value: '' },
      server: { value: '', type: 'media-spaces-config', required: true },
      ...definition.defaults,
    },
  };
}
