import type { FeedSecret } from '../../../lib/schedule/sources/feed-access';
import type { FeedTestAnswer } from '../../../lib/schedule/sources/feed-test-answer';
import { postAdmin } from '../../shared/editor/admin';
import { kindRow, type WindowKind } from './feed-fields';

type Line = (text: string, top?: boolean) => JQuery;

/** What a window's "Test feed" sends besides the window. */
export interface FeedTestContext {
  label(key: string): string;
  /** the schedule node's id: the runtime tests the deployed node's own window when nothing else is named */
  nodeId: string;
  /** the node's default zone, for a window that names none */
  timezone(): string;
  /** the document's max_channels, when it has one */
  maxChannels(): number | undefined;
}

const muted = { 'font-size': '0.85em', color: 'var(--red-ui-secondary-text-color, #888)' };

/**
 * "2026-11-27T09:58:00+01:00" → "2026-11-27 09:58 +01:00": the zone's time with its offset, shorter; its
 * seconds kept ("2026-11-27 19:15:30 +00:00") when the span's start or end has any, so that 19:15:30–19:18:30
 * never reads 19:15–19:18.
 */
const short = (iso: string, seconds = false) =>
  iso
    .replace('T', ' ')
    .replace(/(:\d{2})([+-]\d{2}:\d{2}|Z)$/, (_all, s: string, zone: string) =>
      seconds ? `${s} ${zone}` : ` ${zone}`,
    );
const hasSeconds = (...isos: string[]) => isos.some((iso) => !/:00([+-]\d{2}:\d{2}|Z)$/.test(iso));
/** "start – end", both with seconds when either has them. */
const span = (start: string, end: string) => {
  const seconds = hasSeconds(start, end);
  return `${short(start, seconds)} – ${short(end, seconds)}`;
};

function renderAnswer($out: JQuery, res: FeedTestAnswer, label: (k: string) => string): void {
  $out.empty();
  const line = (cls: string, words: string) => $('<div>').addClass(cls).text(words).appendTo($out);
  if (res.error) line('ms-w-feed-error', res.error).css('color', 'var(--red-ui-text-color-error, #c00)');
  for (const issue of res.issues ?? [])
    line('ms-w-feed-issue', `${issue.path ? `${issue.path}: ` : ''}${issue.message}`);
  if (!res.ok) return;
  if (res.occurrences.length === 0) line('ms-w-feed-none', label('feed.none'));
  const $list = $('<ol class="ms-w-feed-occurrences" style="margin: 4px 0 4px 18px; padding: 0">').appendTo($out);
  for (const o of res.occurrences) {
    const $item = $('<li class="ms-w-feed-occurrence">').appendTo($list);
    $('<span class="ms-w-feed-title" style="font-weight: bold">')
      .text(o.title ?? o.id)
      .appendTo($item);
    $('<span>')
      .text(` ${span(o.padded_start, o.padded_end)}`)
      .appendTo($item);
    $('<div>')
      .css(muted)
      .text(`${label('feed.unpadded')} ${span(o.start, o.end)} · ${o.id}${o.channel ? ` · ${o.channel}` : ''}`)
      .appendTo($item);
  }
  if (res.more > 0) line('ms-w-feed-more', label('feed.more').replace('{n}', String(res.more)));
  for (const c of res.conflicts) {
    const words = label('feed.conflict')
      .replace('{title}', c.title ?? c.id)
      .replace('{start}', short(c.padded_start, hasSeconds(c.padded_start)))
      .replace('{lost}', (c.lost_to ?? c.with).join(', '))
      .replace('{n}', String(c.concurrent))
      .replace('{limit}', String(c.limit));
    line('ms-w-feed-conflict', words).css('color', 'var(--red-ui-text-color-error, #c00)');
  }
  for (const p of res.problems) line('ms-w-feed-problem', p).css(muted);
  line('ms-w-feed-zone', `${label('feed.zone')} ${res.timezone ?? ''}`).css(muted);
}

/**
 * The "Test feed" button of a calendar or guide window and its answer: the
 * next occurrences that match, with their padded times in the window's zone,
 * the conflicts and the feed's problems, shown as text.
 */
export function feedTestRow(
  line: Line,
  ctx: FeedTestContext,
  read: () => { window: Record<string, unknown>; secret: FeedSecret },
): void {
  const kinds: WindowKind[] = ['ical', 'xmltv'];
  const $row = kindRow(line, kinds, '', true);
  const $button = $('<button type="button" class="red-ui-button red-ui-button-small ms-w-feed-test">')
    .append($('<i class="fa fa-flask"></i>'))
    .append($('<span>').text(` ${ctx.label('feed.test')}`))
    .appendTo($row);
  const $out = $('<div class="ms-w-feed-result">').css({ margin: '4px 0 0 105px' }).appendTo($row);
  $button.on('click', () => {
    const { window, secret } = read();
    const body: Record<string, unknown> = { node: ctx.nodeId, window };
    if (Object.keys(secret).length > 0) body.secret = secret;
    if (ctx.timezone()) body.timezone = ctx.timezone();
    const max = ctx.maxChannels();
    if (max !== undefined) body.max_channels = max;
    $button.prop('disabled', true);
    $out.empty().append($('<div class="ms-w-feed-wait">').css(muted).text(ctx.label('feed.testing')));
    postAdmin<FeedTestAnswer>('schedule/test-feed', body)
      .done((res) => renderAnswer($out, res, ctx.label))
      .fail((xhr: JQuery.jqXHR) => {
        const answer = xhr.responseJSON as FeedTestAnswer | undefined;
        if (answer && typeof answer.error === 'string') return renderAnswer($out, { ...answer, ok: false }, ctx.label);
        const words = xhr.status === 403 ? ctx.label('feed.needsDeploy') : `HTTP ${xhr.status}`;
        $out.empty().append($('<div class="ms-w-feed-error">').text(words));
      })
      .always(() => $button.prop('disabled', false));
  });
}
