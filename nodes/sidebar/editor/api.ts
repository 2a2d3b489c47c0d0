import type { ActionName, FeedReloadResult } from '../activity-types';
import type { WireSnapshot } from '../activity-wire';

export type Fetched =
  | { ok: true; wire: WireSnapshot; etag?: string }
  /** the route answered 304: the answer held (named by its ETag) is still the runtime's */
  | { ok: true; unchanged: true }
  | { ok: false; status: number; message: string };

/**
 * A request the runtime never answers (its connection held open across a
 * restart) would hold the tab's fetches behind it until a reload; after this
 * it counts as failed and the next signal asks again.
 */
export const REQUEST_TIMEOUT_MS = 20_000;

/**
 * The wait for an answer: settings.js `'media-spaces-sidebar': { requestTimeout: <ms> }` (Node-RED hands a
 * plugin's settings to the editor), a positive number of milliseconds; REQUEST_TIMEOUT_MS otherwise.
 */
export function requestTimeoutMs(): number {
  const editor = (globalThis as { RED?: { settings?: Record<string, unknown> } }).RED;
  const own = editor?.settings?.['media-spaces-sidebar'] as { requestTimeout?: unknown } | undefined;
  const ms = typeof own?.requestTimeout === 'number' ? own.requestTimeout : Number.NaN;
  return Number.isFinite(ms) && ms > 0 ? ms : REQUEST_TIMEOUT_MS;
}

/** jQuery's statusText of a timeout is the bare word "timeout": the sentence the tab shows instead. */
function noAnswerWithin(ms: number): string {
  return `no answer within ${ms / 1000} s`;
}

/**
 * Calls through jQuery, not fetch: the editor's ajax setup adds the
 * signed-in user's token to every request.
 */
function call(method: 'GET' | 'POST', url: string, data?: unknown, etag?: string): Promise<Fetched> {
  const timeout = requestTimeoutMs();
  return new Promise((resolve) => {
    $.ajax({
      url,
      method,
      dataType: 'json',
      cache: false,
      timeout,
      ...(etag ? { headers: { 'If-None-Match': etag } } : {}),
      ...(data === undefined ? {} : { contentType: 'application/json', data: JSON.stringify(data) }),
    }).then(
      (body: ({ snapshot?: WireSnapshot } & WireSnapshot) | undefined, _status: string, xhr: JQuery.jqXHR) => {
        if (xhr.status === 304 || body === undefined) {
          resolve({ ok: true, unchanged: true });
          return;
        }
        const wire = method === 'POST' ? (body.snapshot as WireSnapshot) : body;
        resolve({ ok: true, wire, etag: xhr.getResponseHeader('ETag') ?? undefined });
      },
      (xhr: JQuery.jqXHR, textStatus: string) => {
        const message = (xhr.responseJSON as { error?: { message?: string } } | undefined)?.error?.message;
        const none = textStatus === 'timeout' ? noAnswerWithin(timeout) : xhr.statusText;
        resolve({ ok: false, status: xhr.status, message: message ?? (none || 'no answer') });
      },
    );
  });
}

/**
 * One part of the activity: the schedules with `ahead` hours of planned starts (the timeline's view), or the
 * jobs; `etag` names the answer held, if any.
 */
export function fetchActivity(part: 'schedules' | 'jobs', ahead: number, etag?: string): Promise<Fetched> {
  return call('GET', `media-spaces/activity?part=${part}&ahead=${ahead}`, undefined, etag);
}

export function postAction(nodeId: string, action: ActionName, ahead: number): Promise<Fetched> {
  return call('POST', `media-spaces/schedules/${encodeURIComponent(nodeId)}/${action}?ahead=${ahead}`, {});
}

export type Reloaded = { ok: true; result: FeedReloadResult } | { ok: false; status: number; message: string };

/** "Reload feed" of a calendar or guide window (write permission): what the fetch read. */
export function postReload(nodeId: string, windowId: string): Promise<Reloaded> {
  const timeout = requestTimeoutMs();
  return new Promise((resolve) => {
    $.ajax({
      url: `media-spaces/schedules/${encodeURIComponent(nodeId)}/windows/${encodeURIComponent(windowId)}/reload`,
      method: 'POST',
      dataType: 'json',
      cache: false,
      timeout,
      contentType: 'application/json',
      data: '{}',
    }).then(
      (body: { result: FeedReloadResult }) => resolve({ ok: true, result: body.result }),
      (xhr: JQuery.jqXHR, textStatus: string) => {
        const message = (xhr.responseJSON as { error?: { message?: string } } | undefined)?.error?.message;
        const none = textStatus === 'timeout' ? noAnswerWithin(timeout) : xhr.statusText;
        resolve({ ok: false, status: xhr.status, message: message ?? (none || 'no answer') });
      },
    );
  });
}
