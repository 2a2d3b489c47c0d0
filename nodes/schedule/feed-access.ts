import path from 'node:path';
import type { FeedCredentials, FeedWindowSource } from '../../lib/schedule/sources';
import type { ScheduleAPI, ScheduleNode } from './types';

/** Where a schedule's feeds keep their last good copy: beside its journal in the user directory. */
export function feedDir(RED: ScheduleAPI, node: ScheduleNode): string | undefined {
  const userDir = RED.settings?.userDir;
  return typeof userDir === 'string' && userDir !== ''
    ? path.join(userDir, '.media-spaces', 'feeds', node.id)
    : undefined;
}

/**
 * The address a window's feed is fetched from, and its credentials. A relative file path is read from
 * Node-RED's user directory (where flows and settings are), not from wherever Node-RED was started.
 */
export function feedAccessOf(
  source: FeedWindowSource,
  userDir: unknown,
): { location: string; credentials?: FeedCredentials } | string {
  const location = source.location;
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(location);
  if (!isUrl && !path.isAbsolute(location) && typeof userDir === 'string' && userDir !== '') {
    return { location: path.resolve(userDir, location) };
  }
  return { location };
}
