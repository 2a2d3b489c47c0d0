import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importCycles, sourceFiles } from '../support/import-cycles';
import { crossNodeImports, importGraph, sharedByOneOrNone } from '../support/node-imports';
import { NODE_TYPES, nodeEntry, ROOT } from '../support/node-modules';

/**
 * The shape rules of nodes/: one skeleton per node (a registration entry that
 * requires its controller on first deploy), shared/ holding only what several
 * nodes use, no node importing another's folder, no import cycle, short
 * functions, no double casts. Checked on the source so that a change that
 * breaks them fails here rather than in a review.
 */

const NODES = join(ROOT, 'nodes');
/** The folder of every node type package.json registers (the sidebar is a plugin, not a node). */
const NODE_FOLDERS = NODE_TYPES.map((type) => basename(dirname(nodeEntry(type))));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const files = sources(NODES).map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));

function longFunctions(path: string, text: string, limit: number): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > limit) found.push(`${path}:${start + 1} (${end - start + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The `require(...)` calls of a file, by their argument. */
function requires(text: string): string[] {
  return [...text.matchAll(/\brequire\(\s*(['"])([^'"]+)\1\s*\)/g)].map((m) => m[2] ?? '');
}

describe('nodes/ source shape', () => {
  it('finds the node sources and the eleven node folders', () => {
    expect(files.length).toBeGreaterThan(30);
    expect(NODE_FOLDERS).toHaveLength(11);
  });

  it('every node folder has a controller.ts', () => {
    expect(NODE_FOLDERS.filter((folder) => !existsSync(join(NODES, folder, 'controller.ts')))).toEqual([]);
  });

  it('every entry requires its controller, and only that, at run time', () => {
    const entries = NODE_TYPES.map((type) => {
      const path = join(NODES, basename(dirname(nodeEntry(type))), `${type}.ts`);
      return [relative(ROOT, path), requires(readFileSync(path, 'utf8'))];
    });
    expect(Object.fromEntries(entries)).toEqual(Object.fromEntries(entries.map(([path]) => [path, ['./controller']])));
  });

  it('nothing under nodes/shared/ serves fewer than two node folders', () => {
    expect(sharedByOneOrNone(importGraph(sourceFiles(NODES)), NODES)).toEqual([]);
  });

  it("no file imports another node's folder", () => {
    expect(crossNodeImports(importGraph(sourceFiles(NODES)), NODES, NODE_FOLDERS)).toEqual([]);
  });

  it('no import cycle under nodes/', () => {
    expect(importCycles(sourceFiles(NODES))).toEqual([]);
  });

  it('every file that calls registerType is at most 150 lines', () => {
    const fat = files
      .filter((f) => f.text.includes('registerType('))
      .map((f) => ({ path: f.path, lines: f.text.split('\n').length }))
      .filter((f) => f.lines > 150);
    expect(fat).toEqual([]);
  });

  it('no function under nodes/ is over 80 lines', () => {
    expect(files.flatMap((f) => longFunctions(f.path, f.text, 80))).toEqual([]);
  });

  it('no double cast (as unknown as) under nodes/', () => {
    expect(files.filter((f) => f.text.includes('as unknown as')).map((f) => f.path)).toEqual([]);
  });
});

/** The import rules above, on small trees that break them: each would fail the check on nodes/. */
describe('nodes/ import rules on a tree that breaks them', () => {
  const dir = '/n';
  const file = (path: string) => join(dir, path);
  const tree: Record<string, string[]> = {
    'a/controller.ts': ['shared/used-by-two.ts', 'shared/only-a.ts', 'b/settings.ts'],
    'b/controller.ts': ['shared/used-by-two.ts', './settings.ts'],
    'b/settings.ts': [],
    'shared/used-by-two.ts': ['shared/through-two.ts'],
    // used by a shared file only, which serves a alone
    'shared/only-a.ts': ['shared/through-a.ts'],
    'shared/through-a.ts': [],
    'shared/through-two.ts': [],
    'shared/unused.ts': [],
    'sidebar/feed.ts': [],
    'c/controller.ts': ['sidebar/feed.ts'],
  };
  const graph = importGraph(Object.keys(tree).map(file), (f) =>
    (tree[relative(dir, f)] ?? []).map((target) => file(target.replace('./', 'b/'))),
  );

  it('counts the users of a shared file by node folder, through other shared files', () => {
    expect(sharedByOneOrNone(graph, dir)).toEqual([
      'shared/only-a.ts: a',
      'shared/through-a.ts: a',
      'shared/unused.ts: none',
    ]);
  });

  it("finds an import of another node's folder, not of shared/ or of a folder that is no node's", () => {
    expect(crossNodeImports(graph, dir, ['a', 'b', 'c'])).toEqual(['a/controller.ts -> b/settings.ts']);
  });
});
