import { type FieldTable, isBlank } from '../fields';

/**
 * The `onadd` of a node type: each config-node field marked `takeOnly` that a
 * node arrives without (dropped from the palette, or pasted or imported with it
 * blank) takes the one config node of its type the node can use, as a user with
 * one server would pick it. Node-RED's own dialog leaves the select on "none"
 * (Node-RED 4 and 5 set it to the node's value, blank), and the node stays
 * invalid until the user opens it. With none or several there is nothing to
 * guess: the field stays blank.
 */
export function takeOnlyConfigNodes(fields: FieldTable): (this: EditorNodeInstance) => void {
  const taken = Object.entries(fields).filter(([, field]) => field.node && field.takeOnly);
  return function (this: EditorNodeInstance) {
    for (const [key, field] of taken) {
      if (!isBlank(this[key])) continue;
      const only = onlyConfigNode(field.node as string, typeof this.z === 'string' ? this.z : undefined);
      if (only) this[key] = only;
    }
  };
}

/** The id of the one config node of `type` a node on flow `z` can use (global, or on that flow), if there is one. */
function onlyConfigNode(type: string, z: string | undefined): string | undefined {
  const ids: string[] = [];
  RED.nodes.eachConfig((config) => {
    if (config.type === type && (!config.z || config.z === z)) ids.push(config.id);
    return ids.length < 2;
  });
  return ids.length === 1 ? ids[0] : undefined;
}
