import type { ActionName, ActivitySnapshot } from '../activity-types';

export type Fetched = { ok: true; snapshot: ActivitySnapshot } | { ok: false; status: number; message: string };

/**
 * Calls through jQuery, not fetch: the editor's ajax setup adds the
 * signed-in user's token to every request.
 */
function call(method: 'GET' | 'POST', url: string, data?: unknown): Promise<Fetched> {
  return new Promise((resolve) => {
    $.ajax({
      url,
      method,
      dataType: 'json',
      cache: false,
      ...(data === undefined ? {} : { contentType: 'application/json', data: JSON.stringify(data) }),
    }).then(
      (body: { snapshot?: ActivitySnapshot } & ActivitySnapshot) =>
        resolve({ ok: true, snapshot: method === 'POST' ? (body.snapshot as ActivitySnapshot) : body }),
      (xhr: JQuery.jqXHR) => {
        const message = (xhr.responseJSON as { error?: { message?: string } } | undefined)?.error?.message;
        resolve({ ok: false, status: xhr.status, message: message ?? (xhr.statusText || 'no answer') });
      },
    );
  });
}

export function fetchActivity(part: 'all' | 'jobs'): Promise<Fetched> {
  return call('GET', part === 'jobs' ? 'media-spaces/activity?part=jobs' : 'media-spaces/activity');
}

export function postAction(nodeId: string, action: ActionName): Promise<Fetched> {
  return call('POST', `media-spaces/schedules/${encodeURIComponent(nodeId)}/${action}`, {});
}
