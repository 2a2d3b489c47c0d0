import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/node-modules';

/**
 * The shape rules of nodes/: thin registration entries, short functions,
 * no double casts. Checked on the source so that a change that breaks them
 * fails here rather than in a review.
 */

const NODES = join(ROOT, 'nodes');

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

describe('nodes/ source shape', () => {
  it('finds the node sources', () => {
    expect(files.length).toBeGreaterThan(30);
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
