import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { isPlainObject } from '../../lib/guards';
import type { FeedSecret } from '../../lib/schedule/sources/feed-access';
import type { ScheduleAPI } from './types';

/** What the runtime's node API gives beyond the types the nodes use: the deployed flow and its credentials. */
type DeployedAPI = ScheduleAPI & {
  nodes: ScheduleAPI['nodes'] & {
    eachNode?(cb: (def: Record<string, unknown>) => void): void;
    getCredentials?(id: string): Record<string, unknown> | undefined;
  };
};

/** A schedule file read for a feed test at the most (a schedule document, not a guide). */
const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

/** A window of a deployed schedule node, as its document writes it, with what the node keeps of its feed. */
export interface DeployedWindow {
  window?: Record<string, unknown>;
  secret: FeedSecret;
  /** the document's `max_channels`, when it has one */
  maxChannels?: number;
  /** the zone of windows that name none: the document's, else the node's */
  timezone?: string;
}

/**
 * The window `windowId` of the deployed, running schedule node `nodeId`: read
 * from the flow as deployed (never from the request), with the node's stored
 * feed secret for it. Undefined when no such node runs (another type, a
 * disabled or undeployed node); `window` is missing when its document has no
 * such window.
 */
export async function deployedWindow(
  RED: ScheduleAPI,
  nodeId: string,
  windowId: string,
): Promise<DeployedWindow | undefined> {
  const api = RED as DeployedAPI;
  const running = api.nodes.getNode(nodeId);
  if (running?.type !== 'media-spaces-schedule') return undefined;
  let def: Record<string, unknown> | undefined;
  api.nodes.eachNode?.((d) => {
    if (d.id === nodeId) def = d;
  });
  if (!def) return undefined;
  const doc = await documentOf(def, RED.settings?.userDir);
  const windows = Array.isArray(doc.windows) ? doc.windows : [];
  const window = windows.find((w): w is Record<string, unknown> => isPlainObject(w) && w.id === windowId);
  const { parseFeedSecrets } =
    require('../../lib/schedule/sources/feed-access') as typeof import('../../lib/schedule/sources/feed-access');
  const stored = api.nodes.getCredentials?.(nodeId)?.feeds;
  const secrets = parseFeedSecrets(typeof stored === 'string' ? stored : undefined);
  const maxChannels = doc.max_channels;
  const zone = typeof doc.timezone === 'string' && doc.timezone ? doc.timezone : def.timezone;
  return {
    ...(window ? { window } : {}),
    secret: Object.hasOwn(secrets, windowId) ? secrets[windowId] : {},
    ...(typeof maxChannels === 'number' ? { maxChannels } : {}),
    ...(typeof zone === 'string' && zone.trim() ? { timezone: zone.trim() } : {}),
  };
}

/** The deployed node's schedule document as data; an unreadable one reads as no windows. */
async function documentOf(def: Record<string, unknown>, userDir: string | undefined): Promise<Record<string, unknown>> {
  if (def.source === 'editor') return { windows: Array.isArray(def.windows) ? def.windows : [] };
  let text = typeof def.yaml === 'string' ? def.yaml : '';
  if (def.source === 'file') {
    if (typeof def.file !== 'string' || def.file.trim() === '') return {};
    try {
      const buffer = await readFile(path.resolve(userDir ?? process.cwd(), def.file.trim()));
      if (buffer.length > MAX_DOCUMENT_BYTES) return {};
      text = buffer.toString('utf8');
    } catch {
      return {};
    }
  }
  try {
    const { parse } = require('yaml') as typeof import('yaml');
    const doc: unknown = parse(text, { maxAliasCount: 100 });
    return isPlainObject(doc) ? doc : {};
  } catch {
    return {};
  }
}
