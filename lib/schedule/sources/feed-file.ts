import path from 'node:path';

/**
 * A relative feed file path read from `baseDir` (the running window and Test feed pass the folder the core
 * file node writes to); URLs and absolute paths as they are. Apart from feed-access.ts, which the editor
 * bundles for the browser.
 */
export function resolveFeedFile(location: string, baseDir: string | undefined): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location) || path.isAbsolute(location) || !baseDir) return location;
  return path.resolve(baseDir, location);
}
