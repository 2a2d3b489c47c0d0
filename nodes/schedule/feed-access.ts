import path from 'node:path';
import type { FeedCredentials, FeedWindowSource } from '../../lib/schedule/sources';
import { safeId } from '../shared/node-state';
import type { ScheduleAPI, ScheduleNode } from './types';

type Sources = typeof import('../../lib/schedule/sources');

/**
 * Where a schedule's feeds keep their last good copy: beside its journal in the user directory, in a
 * folder named by the node's id made safe as the journal's name is, and with no leading dot (an id
 * `..`, `../x` or `/x` is one folder inside `feeds/`, never a path out of it nor a hidden one).
 */
export function feedDir(RED: ScheduleAPI, node: ScheduleNode): string | undefined {
  const userDir = RED.settings?.userDir;
  return typeof userDir === 'string' && userDir !== ''
    ? path.join(userDir, '.media-spaces', 'feeds', safeId(node.id).replace(/^\./, '_'))
    : undefined;
}

/**
 * The folder a relative feed path is read from: the one the core file node writes a relative path to
 * (`fileWorkingDirectory` in settings.js, else the directory Node-RED was started in), so that a flow that
 * writes its own feed with a file node and a window that reads it name the same file.
 */
export function feedBaseDir(RED: ScheduleAPI): string {
  const dir = RED.settings?.fileWorkingDirectory;
  return typeof dir === 'string' && dir !== '' ? dir : process.cwd();
}

/**
 * The address a window's feed is fetched from and its credentials: the document's, or the node's stored
 * secret where the document says `private` (the `feeds` credential); a relative file path from `baseDir`.
 * A sentence naming the window, never the address, when something is missing.
 */
export function feedAccessOf(
  source: FeedWindowSource,
  node: ScheduleNode,
  baseDir: string,
): { location: string; credentials?: FeedCredentials } | string {
  // the feed sources load with the first feed window only
  const { feedAccess, parseFeedSecrets, resolveFeedFile } = require('../../lib/schedule/sources') as Sources;
  const access = feedAccess({ id: source.id, location: source.location }, parseFeedSecrets(node.credentials?.feeds));
  return typeof access === 'string' ? access : { ...access, location: resolveFeedFile(access.location, baseDir) };
}
