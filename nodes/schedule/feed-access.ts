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

/** The address a window's feed is fetched from, and its credentials. */
export function feedAccessOf(
  source: FeedWindowSource,
  _node: ScheduleNode,
): { location: string; credentials?: FeedCredentials } | string {
  return { location: source.location };
}
