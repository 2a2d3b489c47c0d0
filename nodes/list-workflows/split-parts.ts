import type { NodeAPI, NodeMessage } from '../shared/node-red-types';

/**
 * One message per array element, with `msg.parts` as the core split node
 * writes it for arrays, so a join node in automatic mode reassembles the
 * array. A message that already carries parts (it came out of another split)
 * keeps them nested under `parts.parts`, exactly as the split node does.
 */
export function splitMessages(RED: NodeAPI, msg: NodeMessage, items: readonly unknown[]): NodeMessage[] {
  const id = RED.util.generateId();
  const outer = msg.parts;
  const template = { ...msg };
  delete template.parts;
  delete template.payload;
  return items.map((item, index) => {
    const out = RED.util.cloneMessage(template);
    out.payload = item;
    out.parts = {
      ...(outer === undefined ? {} : { parts: outer }),
      id,
      index,
      count: items.length,
      type: 'array',
      len: 1,
    };
    return out;
  });
}
