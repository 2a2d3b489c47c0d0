/** Calls to the admin endpoints of nodes/config/admin-routes.ts, from the edit dialogs. */

export function postAdmin<T>(path: string, body: unknown): JQuery.jqXHR<T> {
  return $.ajax({
    url: `media-spaces/${path}`,
    type: 'POST',
    contentType: 'application/json',
    data: JSON.stringify(body),
    dataType: 'json',
  });
}

/** The error an admin endpoint answered with, else its HTTP status. */
export function adminErrorText(xhr: JQuery.jqXHR): string {
  const body = xhr.responseJSON as { error?: { message?: string } } | undefined;
  return body?.error?.message ?? `HTTP ${xhr.status}`;
}

/** The message of the error body, if there is one. */
export function adminErrorMessage(xhr: JQuery.jqXHR): string | undefined {
  const body = xhr.responseJSON as { error?: { message?: string } } | undefined;
  return body?.error?.message;
}
