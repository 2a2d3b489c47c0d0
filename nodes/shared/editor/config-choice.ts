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

/**
 * A config node of `type` made in the editor (in a node's dialog: "Add new …") is taken by each node
 * that arrived while there was none to take: every blank field of that type, where it is now the one
 * such config node the node can use. Node-RED leaves them on "none" (each node stays invalid until its
 * dialog is opened and the server picked), though the user has just made the only server there is.
 * Config nodes read with the flows or imported fill nothing here (an import's own nodes take the
 * only server through `onadd`). One undo puts the fields back. Registered once, by the config node
 * type's editor.
 */
export function takeAddedConfigNode(type: string): void {
  // an editor without this API (another Node-RED version) leaves the fields as they are
  if (typeof RED.events?.on !== 'function') return;
  RED.events.on('nodes:add', (added) => {
    const config = added as EditorNodeInstance;
    // the config dialog adds its node just before its tray closes; an import or a load has no such tray
    if (config?.type !== type || !document.getElementById('node-config-dialog-ok')) return;
    // once Node-RED is done with its own add (its history entry, the select of the dialog beneath)
    setTimeout(() => {
      if (RED.nodes.node(config.id)) fillFromAdded(type, config.id);
    }, 0);
  });
}

function fillFromAdded(type: string, id: string): void {
  const edits: HistoryEdit[] = [];
  RED.nodes.eachNode((node) => {
    const changed = node.changed;
    const dirty = node.dirty;
    const changes = fillBlanks(node, type, id);
    if (changes) edits.push({ t: 'edit', node, changes, changed, dirty });
    return true;
  });
  if (edits.length === 0) return;
  for (const { node } of edits) {
    node.changed = true;
    node.dirty = true;
    RED.nodes.updateConfigNodeUsers?.(node, { action: 'add' });
    RED.editor.validateNode(node);
    RED.events.emit('nodes:change', node);
  }
  RED.history.push({ t: 'multi', events: edits, dirty: RED.nodes.dirty() });
  RED.nodes.dirty(true);
  RED.view.redraw(true);
}

type HistoryEdit = {
  t: 'edit';
  node: EditorNodeInstance;
  changes: Record<string, unknown>;
  changed: unknown;
  dirty: unknown;
};

/** Sets each blank field of `node` that refers to a config node of `type` to `id`, where that is its only one; the old values. */
function fillBlanks(node: EditorNodeInstance, type: string, id: string): Record<string, unknown> | undefined {
  const defaults = (node._def as { defaults?: Record<string, EditorNodeProperty> } | undefined)?.defaults ?? {};
  let changes: Record<string, unknown> | undefined;
  for (const [key, property] of Object.entries(defaults)) {
    if (property.type !== type || !isBlank(node[key])) continue;
    if (onlyConfigNode(type, typeof node.z === 'string' ? node.z : undefined) !== id) continue;
    changes = { ...changes, [key]: node[key] };
    node[key] = id;
  }
  return changes;
}
