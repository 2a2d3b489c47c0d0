import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';

/** A node type's definition as its bundled edit dialog registers it with the editor. */
export interface EditorDefinition {
  defaults: Record<string, { value: unknown; type?: string; required?: boolean; validate?: Function }>;
  [key: string]: unknown;
}

/** Anything the dialog code touches at load time: callable, and every property is another such stub. */
function stub(): unknown {
  const fn = () => stub();
  return new Proxy(fn, { get: (_t, key) => (key === Symbol.toPrimitive ? () => '' : stub()) });
}

/**
 * Runs the editor scripts of a built node .html (dist/nodes/<node>/*.html) the
 * way the editor loads them, with a stand-in RED that keeps what
 * registerType receives. RED.validators.typedInput checks that the type field
 * holds one of the types Node-RED knows, as the editor does.
 */
export function editorDefinitions(distNodeDir: string): Record<string, EditorDefinition> {
  const registered: Record<string, EditorDefinition> = {};
  const html = readdirSync(distNodeDir).find((f) => f.endsWith('.html'));
  if (!html) return registered;
  const text = readFileSync(join(distNodeDir, html), 'utf8');
  const scripts = [...text.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  const TYPES = ['str', 'num', 'bool', 'json', 'msg', 'flow', 'global', 'env', 're', 'date', 'jsonata', 'bin'];
  const RED = {
    nodes: {
      registerType: (type: string, definition: EditorDefinition) => {
        registered[type] = definition;
      },
    },
    validators: {
      typedInput: (typeField: string) =>
        function (this: Record<string, unknown>, value: unknown) {
          const type = this[typeField];
          return (type === undefined || type === '' || TYPES.includes(String(type))) && value !== undefined;
        },
      number: () => () => true,
      regex: (re: RegExp) => (v: unknown) => re.test(String(v)),
    },
    _: (key: string) => key,
    settings: {},
  };
  for (const script of scripts)
    runInNewContext(script, { RED, $: stub(), jQuery: stub(), window: {}, console, URL, Intl });
  return registered;
}
