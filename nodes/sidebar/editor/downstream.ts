/**
 * The nodes a schedule's messages reach in the editor's flows: along wires, and from a `link out` to the
 * `link in` nodes it names (a `link call` to its targets too). A job belongs to a schedule when the
 * follow-job node that follows it is one of these: the toolbar's schedule filter keeps those jobs.
 */
export function downstreamOf(nodeId: string): Set<string> {
  const seen = new Set<string>([nodeId]);
  const queue = [nodeId];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    const next: string[] = [];
    for (const link of RED.nodes.filterLinks({ source: { id } })) next.push(link.target.id);
    const node = RED.nodes.node(id);
    if (node && (node.type === 'link out' || node.type === 'link call') && Array.isArray(node.links)) {
      for (const target of node.links) if (typeof target === 'string') next.push(target);
    }
    for (const target of next) {
      if (seen.has(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  seen.delete(nodeId);
  return seen;
}
