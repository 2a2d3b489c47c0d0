import type { HttpRequest, HttpResponse, NodeAPI } from '../shared/node-red-types';
import { READ_PERMISSION, requirePermission, WRITE_PERMISSION } from '../shared/permission';
import type { ActionName } from './activity-types';
import { ActivityActionError, type ActivityFeed } from './feed';

const ACTIVITY_PATH = '/media-spaces/activity';
const ACTION_PATH = '/media-spaces/schedules/:id/:action';
const RELOAD_PATH = '/media-spaces/schedules/:id/windows/:window/reload';
const ACTIONS: readonly ActionName[] = ['pause', 'resume', 'start', 'skip'];

/**
 * The sidebar's endpoints: the state (read permission) and the schedule
 * actions (write permission). The comms signal carries no data, so these
 * guards are what keeps the activity from users without the permission.
 */
export function registerActivityRoutes(RED: Pick<NodeAPI, 'auth' | 'httpAdmin'>, feed: ActivityFeed): void {
  RED.httpAdmin.get(ACTIVITY_PATH, requirePermission(RED, READ_PERMISSION), (req, res) => {
    const part = req.query.part === 'jobs' || req.query.part === 'schedules' ? req.query.part : 'all';
    const ahead = aheadOf(req);
    const etag = feed.etag(part, ahead);
    // the tab polls: an answer it holds already is named, not sent again (only after the read check above)
    res.set('ETag', etag);
    res.set('Cache-Control', 'private, no-cache');
    if (holds(req, etag)) {
      res.status(304).send('');
      return;
    }
    res.status(200).json(feed.wire(part, ahead));
  });
  RED.httpAdmin.post(RELOAD_PATH, requirePermission(RED, WRITE_PERMISSION), (req, res) => {
    reload(feed, req, res).catch(() => undefined);
  });
  RED.httpAdmin.post(ACTION_PATH, requirePermission(RED, WRITE_PERMISSION), (req, res) => {
    act(feed, req, res).catch(() => undefined);
  });
}

/** "Reload feed": the window's feed fetched now; the answer says what it read (or why the schedule refused). */
async function reload(feed: ActivityFeed, req: HttpRequest, res: HttpResponse): Promise<void> {
  try {
    const result = await feed.reloadFeed(req.params?.id ?? '', req.params?.window ?? '');
    res.status(200).json({ ok: true, result });
  } catch (error) {
    const status = error instanceof ActivityActionError ? error.status : 500;
    const message = error instanceof Error ? error.message : String(error);
    res.status(status).json({ error: { code: errorCode(status), message, window: req.params?.window ?? '' } });
  }
}

/** 404: no such schedule or window; 409: it cannot do that; 500: it failed doing it. */
function errorCode(status: number): string {
  return status === 404 ? 'not_found' : status === 500 ? 'action_failed' : 'refused';
}

/** The client's If-None-Match names this answer (one of a list, weak or not). */
function holds(req: HttpRequest, etag: string): boolean {
  const header = req.headers?.['if-none-match'];
  const named = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  return named.some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** `?ahead=` hours of planned starts (the tab's view: 6, 24 or 168); a week when not given. */
function aheadOf(req: HttpRequest): number | undefined {
  const hours = Number(req.query?.ahead);
  return req.query?.ahead !== undefined && Number.isFinite(hours) ? hours * 3_600_000 : undefined;
}

async function act(feed: ActivityFeed, req: HttpRequest, res: HttpResponse): Promise<void> {
  const id = req.params?.id ?? '';
  const action = req.params?.action ?? '';
  if (!ACTIONS.includes(action as ActionName)) {
    res
      .status(404)
      .json({ error: { code: 'not_found', message: `unknown action "${action}": use ${ACTIONS.join(', ')}` } });
    return;
  }
  const body = typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {};
  const window = body.window;
  if (window !== undefined && typeof window !== 'string') {
    res.status(400).json({ error: { code: 'invalid_input', message: 'window must be a window id (a string)' } });
    return;
  }
  try {
    await feed.act(id, action as ActionName, window);
    res.status(200).json({ ok: true, snapshot: feed.wire('schedules', aheadOf(req)) });
  } catch (error) {
    const status = error instanceof ActivityActionError ? error.status : 500;
    const message = error instanceof Error ? error.message : String(error);
    res.status(status).json({ error: { code: status === 500 ? 'action_failed' : 'refused', message } });
  }
}
