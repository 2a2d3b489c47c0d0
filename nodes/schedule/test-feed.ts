import { isPlainObject } from '../../lib/guards';
import type { FeedSecret } from '../../lib/schedule/sources/feed-access';
import type { HttpRequest, HttpResponse, RequestHandler } from '../shared/node-red-types';
import { requirePermission } from '../shared/permission';
import { deployedWindow } from './deployed-feed';
import { feedBaseDir } from './feed-access';
import type { ScheduleAPI } from './types';

/** Node-RED's deploy permission: what it takes to make the runtime fetch an address a request names. */
const DEPLOY_PERMISSION = 'flows.write';

/** Feed tests running at once at the most: each holds a fetch and a parse. */
const MAX_RUNNING = 2;
let running = 0;

const SECRET_FIELDS = ['location', 'user', 'password', 'token'] as const;

/** The secret typed in the dialog and sent with the request (never one read back from the runtime). */
function typedSecret(value: unknown): FeedSecret {
  const secret: FeedSecret = {};
  if (!isPlainObject(value)) return secret;
  for (const field of SECRET_FIELDS) {
    const v = value[field];
    if (typeof v === 'string' && v !== '') secret[field] = v;
  }
  return secret;
}

const locationOf = (w: Record<string, unknown> | undefined): string | undefined => {
  const location = w?.ical ?? w?.xmltv;
  return typeof location === 'string' ? location.trim() : undefined;
};

/** Runs Node-RED's deploy-permission check in the handler: true when it passes, false when it has answered 403. */
function hasDeployPermission(RED: ScheduleAPI, req: HttpRequest, res: HttpResponse): Promise<boolean> {
  const guard = requirePermission(RED, DEPLOY_PERMISSION);
  return new Promise((resolve) => {
    const answered = res as HttpResponse & { once?(event: string, listener: () => void): void };
    answered.once?.('finish', () => resolve(false));
    guard(req, res, () => resolve(true));
  });
}

interface Plan {
  secret: FeedSecret;
  /** the request names an address (or typed credentials) that the deployed node does not have */
  namesAddress: boolean;
  timezone?: string;
  maxChannels?: number;
}

/**
 * What a request may use: the deployed window's stored secret goes only with
 * the deployed address (the request's window says `private` or the same
 * address, and types no other); anything else the request names is its own,
 * and needs the deploy permission.
 */
async function plan(RED: ScheduleAPI, body: Record<string, unknown>, window: Record<string, unknown>): Promise<Plan> {
  const typed = typedSecret(body.secret);
  const location = locationOf(window);
  const nodeId = typeof body.node === 'string' && body.node !== '' ? body.node : undefined;
  const windowId = typeof window.id === 'string' ? window.id : '';
  const deployed = nodeId && windowId ? await deployedWindow(RED, nodeId, windowId) : undefined;
  const deployedLocation = locationOf(deployed?.window);
  const isPrivate = location === 'private';
  const sameAddress = deployed?.window !== undefined && (isPrivate || location === deployedLocation);
  const secret = typed.location === undefined && sameAddress ? { ...deployed?.secret, ...typed } : typed;
  const maxChannels = Number.isInteger(body.max_channels) ? (body.max_channels as number) : deployed?.maxChannels;
  const timezone = typeof body.timezone === 'string' && body.timezone.trim() ? body.timezone : deployed?.timezone;
  return {
    secret,
    namesAddress:
      Object.keys(typed).length > 0 || (location !== undefined && !isPrivate && location !== deployedLocation),
    ...(timezone ? { timezone } : {}),
    ...(maxChannels !== undefined && maxChannels > 0 ? { maxChannels } : {}),
  };
}

/**
 * POST {node?, window, secret?, timezone?, max_channels?}: the window form's "Test feed". Fetches
 * the window's feed once and answers its next matching occurrences (padded times in the window's
 * zone) and their conflicts, or why the feed cannot be read. Needs media-spaces.write; a request
 * that names a feed address or credentials of its own also needs flows.write, since it makes the
 * runtime fetch what it names. The stored secret address is never sent back.
 */
export function testFeedHandler(RED: ScheduleAPI): RequestHandler {
  return async (req, res) => {
    const body = isPlainObject(req.body) ? req.body : {};
    const window = body.window;
    if (!isPlainObject(window)) {
      res.status(400).json({ ok: false, error: 'Give the window to test (an object, as the document writes it).' });
      return;
    }
    if (locationOf(window) === undefined) {
      const messages = window.messages === true;
      res.status(400).json({
        ok: false,
        error: messages
          ? 'A messages window has no feed: its occurrences come from msg.topic "windows" messages.'
          : 'The window reads no feed: give it ical or xmltv.',
      });
      return;
    }
    if (running >= MAX_RUNNING) {
      res.status(429).json({ ok: false, error: 'Other feed tests are running: try again in a moment.' });
      return;
    }
    running++;
    try {
      const p = await plan(RED, body, window);
      if (p.namesAddress && !(await hasDeployPermission(RED, req, res))) return;
      // zod, the parsers and undici load with the first test, not at Node-RED start
      const { testFeedWindow } =
        require('../../lib/schedule/sources/feed-test') as typeof import('../../lib/schedule/sources/feed-test');
      const answer = await testFeedWindow({
        window,
        secret: p.secret,
        ...(p.timezone ? { timezone: p.timezone } : {}),
        ...(p.maxChannels ? { maxChannels: p.maxChannels } : {}),
        // relative file paths as the running window reads them
        baseDir: feedBaseDir(RED),
      });
      res.status(200).json(answer);
    } catch (err) {
      res.status(500).json({ ok: false, error: `The feed test failed: ${(err as Error).name}.` });
    } finally {
      running--;
    }
  };
}
