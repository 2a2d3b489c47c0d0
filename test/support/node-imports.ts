import path from 'node:path';
import { importsOf } from './import-cycles';

/**
 * Who imports what under nodes/, by folder: nodes/<folder>/… is one node (or the sidebar plugin),
 * nodes/shared/… is what several of them use. Paths are relative to the nodes folder.
 */

export const SHARED = 'shared';

/** The first path segment under the nodes folder: the node's folder, or `shared`. */
export function folderOf(file: string, nodesDir: string): string {
  return path.relative(nodesDir, file).split(path.sep)[0] ?? '';
}

export type ImportGraph = Map<string, string[]>;

export function importGraph(files: string[], read: (file: string) => string[] = importsOf): ImportGraph {
  return new Map(files.map((f) => [f, read(f)]));
}

/**
 * Each file under nodes/shared/ with the node folders that use it, directly or through other
 * shared files: a shared file used only by a shared file that one node uses serves that node alone.
 */
export function sharedUsers(graph: ImportGraph, nodesDir: string): Map<string, Set<string>> {
  const users = new Map<string, Set<string>>();
  const isShared = (f: string) => folderOf(f, nodesDir) === SHARED;
  for (const [file, imports] of graph) {
    const folder = folderOf(file, nodesDir);
    if (folder === SHARED) continue;
    const seen = new Set<string>();
    const stack = imports.filter(isShared);
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      if (seen.has(next)) continue;
      seen.add(next);
      if (!users.has(next)) users.set(next, new Set());
      users.get(next)?.add(folder);
      stack.push(...(graph.get(next) ?? []).filter(isShared));
    }
  }
  for (const file of graph.keys()) if (isShared(file) && !users.has(file)) users.set(file, new Set());
  return users;
}

/** Shared files that serve fewer than two node folders, as `file: users`. */
export function sharedByOneOrNone(graph: ImportGraph, nodesDir: string): string[] {
  return [...sharedUsers(graph, nodesDir)]
    .filter(([, folders]) => folders.size < 2)
    .map(([file, folders]) => `${path.relative(nodesDir, file)}: ${[...folders].join(', ') || 'none'}`)
    .sort();
}

/** Imports from one folder into another node's folder (`nodeFolders`), as `from -> to`. */
export function crossNodeImports(graph: ImportGraph, nodesDir: string, nodeFolders: readonly string[]): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const from = folderOf(file, nodesDir);
    for (const target of imports) {
      const to = folderOf(target, nodesDir);
      if (to !== from && nodeFolders.includes(to)) {
        found.push(`${path.relative(nodesDir, file)} -> ${path.relative(nodesDir, target)}`);
      }
    }
  }
  return found.sort();
}
