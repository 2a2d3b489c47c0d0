/**
 * Importing the package's examples without Node-RED's conflict question.
 *
 * Every example carries the same server config node (one id), so that importing several adds it
 * once. Node-RED 4's Import dialog imports with the ids kept and, when any id already exists,
 * stops and asks (“Some of the nodes you are importing already exist”): which a newcomer cannot
 * answer, and which every second example raised. Here, for an import that holds this package's
 * nodes, a conflict is settled as the examples mean it:
 * - the shared config node that already exists is the server the examples use: it is not
 *   imported again (the flow's nodes keep pointing at its id);
 * - an example flow whose tab is already open (the demo is the recording-automation example) is
 *   shown instead of being imported a second time;
 * - nodes of an example imported before are imported as a copy (new ids; the config node of the
 *   same id is reused, as Node-RED's own "Import copy" does).
 * An example brings its own tab, named after it; Node-RED adds an imported tab without showing it
 * (it shows only a flow it had to make up, "Flow 2"), so the example's new tab is shown.
 * Any other import, and any other error, goes to Node-RED unchanged.
 */

type FlowNode = { id: string; type: string; label?: string };
type ImportOptions = { generateIds?: boolean } & Record<string, unknown>;

const OUR_PREFIX = 'media-spaces-';
const SERVER = 'media-spaces-config';

function isConflict(error: unknown): boolean {
  return error !== null && typeof error === 'object' && (error as { code?: unknown }).code === 'import_conflict';
}

function flowNodes(nodes: unknown): FlowNode[] | null {
  if (!Array.isArray(nodes)) return null;
  const list = nodes.filter((n): n is FlowNode => n !== null && typeof n === 'object' && typeof n.id === 'string');
  return list.some((n) => n.type.startsWith(OUR_PREFIX)) ? list : null;
}

export function quietExampleImports(red: typeof RED): void {
  const view = red.view;
  // an editor without this API (another Node-RED version) imports as it always does
  if (typeof view?.importNodes !== 'function') return;
  const original = view.importNodes.bind(view);
  const exists = (id: string) =>
    Boolean(red.nodes.node(id) ?? red.nodes.workspace(id) ?? red.nodes.group(id) ?? red.nodes.subflow(id));

  const workspaceIds = () => {
    const ids: string[] = [];
    red.nodes.eachWorkspace((w) => {
      ids.push(w.id);
    });
    return ids;
  };

  view.importNodes = (nodes: unknown, options: ImportOptions = {}) => {
    const ours = flowNodes(nodes)?.some((n) => n.type === 'tab') ? new Set(workspaceIds()) : null;
    const result = importQuietly(nodes, options);
    // the example's tab, under its own id or a copy's
    const added = ours ? workspaceIds().find((id) => !ours.has(id)) : undefined;
    if (added) red.workspaces.show(added);
    return result;
  };

  const importQuietly = (nodes: unknown, options: ImportOptions): unknown => {
    try {
      return original(nodes, options);
    } catch (error) {
      const list = flowNodes(nodes);
      if (!isConflict(error) || options.generateIds || !list) throw error;
      const openTab = list.find((n) => n.type === 'tab' && exists(n.id));
      if (openTab) {
        red.workspaces.show(openTab.id);
        const notice = $('<span>').text(
          `“${openTab.label ?? openTab.id}” is already open: shown here, not imported twice.`,
        );
        red.notify(notice, { type: 'compact', timeout: 4000 });
        return undefined;
      }
      const rest = list.filter((n) => !(n.type === SERVER && exists(n.id)));
      try {
        return original(rest, options);
      } catch (again) {
        if (!isConflict(again)) throw again;
        return original(nodes, { ...options, generateIds: true });
      }
    }
  };
}
