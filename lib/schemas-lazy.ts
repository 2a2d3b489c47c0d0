/**
 * lib/schemas builds its zod schemas when it is loaded, which costs about
 * 70 ms and 10 MB. Modules that Node-RED loads at start (the errors, the
 * client, the editor's admin routes) reach the schemas through this on first
 * use instead, so a runtime whose flows never call the service never loads
 * zod. Types still come from './schemas' with `import type`.
 */
type Schemas = typeof import('./schemas');

let loaded: Schemas | undefined;

export function schemas(): Schemas {
  loaded ??= require('./schemas') as Schemas;
  return loaded;
}
