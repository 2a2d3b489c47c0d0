import { PREVIEW_WINDOWS, type PreviewResponse } from '../../../lib/schedule/preview-response';
import type { WindowModel } from './types';

/** What the preview endpoint is asked: the YAML text or the editor list, in the dialog's default zone. */
export type PreviewBody = { yaml: string } | { model: { windows: WindowModel[] } };

/**
 * Asks the runtime to check the schedule (the same parser as at deploy) and list each window's next starts.
 * Of a long list only the windows the preview reads are sent, with the list's length.
 */
export function requestPreview(body: PreviewBody, callback: (res: PreviewResponse) => void): void {
  const request = { ...bounded(body), timezone: $('#node-input-timezone').val(), count: 5 };
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

function bounded(body: PreviewBody): PreviewBody | { model: { windows: WindowModel[] }; total: number } {
  if (!('model' in body) || body.model.windows.length <= PREVIEW_WINDOWS) return body;
  const windows = body.model.windows;
  return { model: { ...body.model, windows: windows.slice(0, PREVIEW_WINDOWS) }, total: windows.length };
}

/** The issues (with their lines), or each window in words with its next starts; then what the preview left out. */
export function renderPreview(res: PreviewResponse | undefined, label: (key: string) => string): void {
  const out = $('#ms-schedule-preview').empty();
  if (!res) return;
  renderResult(res, label, out);
  const left = leftOut(res, label);
  if (left.length > 0) {
    const box = $('<div class="ms-schedule-omitted" style="margin-top: 8px; font-style: italic"></div>').appendTo(out);
    for (const sentence of left) $('<div></div>').text(sentence).appendTo(box);
  }
}

function renderResult(res: PreviewResponse, label: (key: string) => string, out: JQuery): void {
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
    // a listed window has no cron (no "cron:" before its words) and keeps each occurrence's own length
    const what = w.cron ? `${w.cron}: ${w.description}` : w.description;
    const length = w.lengths ?? `${label('preview.for')} ${w.duration}`;
    const priority = w.priority !== undefined ? `, ${label('preview.priority')} ${w.priority}` : '';
    const rerecord = w.rerecord
      ? `, ${label('preview.rerecord').replace('{within}', w.rerecord.within).replace('{lost}', w.rerecord.min_lost)}`
      : '';
    $('<div class="ms-schedule-preview-what"></div>')
      .text(`${what}, ${w.timezone}, ${length}${priority}${rerecord}`)
      .appendTo(box);
    const ol = $('<ol style="margin: 2px 0 0 18px"></ol>').appendTo(box);
    for (const n of w.next) {
      const li = $('<li></li>').text(n.label).attr('title', n.start).appendTo(ol);
      // over max_channels: what the start loses to (the schedule will not try it)
      if (n.lost_to?.length)
        $('<span class="ms-schedule-preview-lost"></span>')
          .css('color', 'var(--red-ui-text-color-error, #c00)')
          .text(` — ${label('preview.lostTo')} ${n.lost_to.join(', ')}`)
          .appendTo(li);
    }
  }
}

/** `{name}` in a label replaced by the value (the label is the node set's own text; the values are numbers). */
function fill(text: string, values: Record<string, number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? values[name].toLocaleString('en-US') : whole,
  );
}

/** One sentence per kind of thing the preview left out to stay small. */
function leftOut(res: PreviewResponse, label: (key: string) => string): string[] {
  const o = res.omitted;
  if (!o) return [];
  const out: string[] = [];
  const total = res.total_windows ?? 0;
  if (o.windows > 0) {
    out.push(fill(label('preview.omittedWindows'), { shown: total - o.windows, total, left: o.windows }));
  }
  if (o.listed > 0) out.push(fill(label('preview.omittedListed'), { n: o.listed }));
  if (o.occurrences > 0) out.push(fill(label('preview.omittedStarts'), { n: o.occurrences }));
  if (o.issues > 0) out.push(fill(label('preview.omittedIssues'), { n: o.issues }));
  return out;
}

/** The preview could not send the whole document back (too many windows): the other view cannot take it. */
export function tooLargeToSwitch(res: PreviewResponse): boolean {
  return res.omitted?.echo === true;
}
