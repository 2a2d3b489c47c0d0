import type { PreviewResponse } from '../../../lib/schedule/preview-response';
import type { WindowModel } from './types';

/** What the preview endpoint is asked: the YAML text or the editor list, in the dialog's default zone. */
export type PreviewBody = { yaml: string } | { model: { windows: WindowModel[] } };

/** Asks the runtime to check the schedule (the same parser as at deploy) and list each window's next starts. */
export function requestPreview(body: PreviewBody, callback: (res: PreviewResponse) => void): void {
  const request = { ...body, timezone: $('#node-input-timezone').val(), count: 5 };
  $.ajax({
    url: 'media-spaces/schedule/preview',
    type: 'POST',
    contentType: 'application/json',
    data: JSON.stringify(request),
    success: (res: PreviewResponse) => callback(res),
    error: (xhr) => {
      const failed: PreviewResponse = {
        ok: false,
        issues: [{ path: '', message: xhr.statusText || 'preview failed', text: xhr.statusText || 'preview failed' }],
        windows: [],
      };
      callback((xhr.responseJSON as PreviewResponse | undefined) ?? failed);
    },
  });
}

/** The issues (with their lines), or each window in words with its next starts. */
export function renderPreview(res: PreviewResponse | undefined, label: (key: string) => string): void {
  const out = $('#ms-schedule-preview').empty();
  if (!res) return;
  if (!res.ok) {
    const ul = $(
      '<ul class="ms-schedule-issues" style="color: var(--red-ui-text-color-error, #c00); padding-left: 18px"></ul>',
    ).appendTo(out);
    for (const issue of res.issues ?? [])
      $('<li></li>')
        .text(issue.text || issue.message)
        .appendTo(ul);
    return;
  }
  if (!res.windows.length) {
    $('<div></div>').text(label('preview.none')).appendTo(out);
    return;
  }
  for (const w of res.windows) {
    const box = $('<div style="margin-bottom: 8px"></div>').appendTo(out);
    $('<div style="font-weight: bold"></div>')
      .text(`${w.name} (${w.id})${w.enabled ? '' : ` — ${label('preview.disabled')}`}`)
      .appendTo(box);
    $('<div></div>')
      .text(`${w.cron}: ${w.description}, ${w.timezone}, ${label('preview.for')} ${w.duration}`)
      .appendTo(box);
    const ol = $('<ol style="margin: 2px 0 0 18px"></ol>').appendTo(box);
    for (const n of w.next) $('<li></li>').text(n.label).attr('title', n.start).appendTo(ol);
  }
}
