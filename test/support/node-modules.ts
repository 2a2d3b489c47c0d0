import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodeModule } from 'node-red-node-test-helper';

/**
 * The compiled node modules (`npm run build` first), found through
 * package.json's `node-red.nodes` as Node-RED itself finds them, so a test
 * never spells a file path that a move could break.
 */

const require = createRequire(import.meta.url);
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  'node-red': { nodes: Record<string, string> };
};

/** Path of a node type's compiled entry, relative to the package root. */
export function nodeEntry(type: string): string {
  const entry = pkg['node-red'].nodes[type];
  if (entry === undefined) throw new Error(`package.json registers no node type ${type}`);
  return entry;
}

export function nodeModule(type: string): NodeModule {
  return require(join(ROOT, nodeEntry(type))) as NodeModule;
}

export const NODE_TYPES = Object.keys(pkg['node-red'].nodes);
