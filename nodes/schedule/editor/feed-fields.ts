import { DurationError, formatDuration, parseDuration } from '../../../lib/schedule/duration';
import { FEED_WINDOW_DEFAULTS as DEFAULTS } from '../../../lib/schedule/feed-defaults';
import { DEFAULT_RERECORD } from '../../../lib/schedule/rerecord';
import type { FeedSecret } from '../../../lib/schedule/sources/feed-access';
import { unsupportedConstruct } from '../../../lib/schedule/sources/pattern-syntax';
import { postAdmin } from '../../shared/editor/admin';
import type { FeedSecrets } from './feed-secrets';
import { errorLine, fieldError, noteLine } from './field-error';

/** Where a window's times come from. */
export const WINDOW_KINDS = ['cron', 'ical', 'xmltv', 'messages'] as const;
export type WindowKind = (typeof WINDOW_KINDS)[number];

type Line = (text: string, top?: boolean) => JQuery;
type Doc = Record<string, unknown>;

const FEEDS: WindowKind[] = ['ical', 'xmltv'];
const DATED: WindowKind[] = ['ical', 'xmltv', 'messages'];
const GUIDE_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const PRIVATE = 'private';

/** The kind of a window as the document writes it. */
export function kindOf(w: Doc): WindowKind {
  if ('ical' in w) return 'ical';
  if ('xmltv' in w) return 'xmltv';
  if (w.messages === true) return 'messages';
  return 'cron';
}

/** A window's feed fields, as the window list reaches them. */
export interface FeedForm {
  /** writes the fields of `kind` into the window, in the order the YAML shows them */
  read(w: Doc, kind: WindowKind): void;
  /** the secret typed for this window (nothing of what is stored: the editor never has it) */
  secret(): FeedSecret;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : Array.isArray(v) ? v.join(', ') : String(v));
const obj = (v: unknown): Doc => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Doc) : {});

function durationCheck(allowZero: boolean) {
  return (v: string): string | undefined => {
    if (v === '' || (allowZero && /^0+[smhd]?$/i.test(v))) return undefined;
    try {
      parseDuration(/^\d+$/.test(v) ? Number(v) : v);
      return undefined;
    } catch (err) {
      return err instanceof DurationError ? err.message : String(err);
    }
  };
}

/** The constructs the runtime's linear-time engine refuses, named as a deploy names them (said as typed). */
export function regexCheck(v: string): string | undefined {
  const construct = v === '' ? undefined : unsupportedConstruct(v);
  return construct
    ? `uses ${construct}, which the linear-time engine does not run (no backreferences or lookaround)`
    : undefined;
}

/** How long typing pauses before a field's slower check is asked. */
const CHECK_PAUSE_MS = 300;

/**
 * The pattern's syntax as RE2 in the runtime reads it (pattern-route.ts): the browser's RegExp, a
 * backtracking engine, never compiles it. Resolves to the deploy's sentence, or undefined.
 */
function runtimePatternCheck(v: string): JQuery.Promise<string | undefined> {
  return postAdmin<{ problem?: string | null }>('schedule/pattern', { pattern: v }).then(
    (answer) => answer.problem ?? undefined,
    () => undefined,
  );
}

/** A row shown for some kinds of window only. */
export function kindRow(line: Line, kinds: WindowKind[], title: string, top = false): JQuery {
  return line(title, top).addClass('ms-w-kind-row').attr('data-kinds', kinds.join(' '));
}

/** Shows a window's rows for its kind, hides the others. */
export function showKind(row: JQuery, kind: WindowKind): void {
  row.find('.ms-w-kind-row').each(function () {
    $(this).toggle(String($(this).attr('data-kinds')).split(' ').includes(kind));
  });
}

function input(cls: string, value: unknown, placeholder = '', type = 'text'): JQuery {
  return $('<input autocomplete="off" style="width: calc(100% - 110px)">')
    .attr('type', type)
    .addClass(cls)
    .attr('placeholder', placeholder)
    .val(text(value));
}

/**
 * A text field checked as it is typed, its reason under it; `later`, where given, is asked once typing
 * pauses and the quick check found nothing (an answer for text since changed is dropped).
 */
function checked(
  $row: JQuery,
  $field: JQuery,
  check: (v: string) => string | undefined,
  changed: () => void,
  later?: (v: string) => JQuery.Promise<string | undefined>,
): JQuery {
  $field.appendTo($row);
  const $error = errorLine(`${$field.attr('class')?.split(' ')[0]}-error`).appendTo($row);
  const value = () => String($field.val() ?? '').trim();
  let pause: ReturnType<typeof setTimeout> | undefined;
  const validate = () => {
    const v = value();
    const problem = check(v);
    fieldError($field, $error, problem);
    clearTimeout(pause);
    if (problem || !later || v === '') return;
    pause = setTimeout(() => {
      later(v).then((found) => {
        if (value() === v) fieldError($field, $error, found);
      });
    }, CHECK_PAUSE_MS);
  };
  $field.on('change keyup input', () => {
    validate();
    changed();
  });
  validate();
  return $field;
}

/**
 * The feed address, and the secrets that go into the node's `feeds`
 * credential: a private address (the document then says `private`) and the
 * user and password or token. Secret inputs start empty: what is stored is
 * never sent to the editor, and an empty one keeps it.
 */
function addressRows(line: Line, label: (k: string) => string, w: Doc, secrets: FeedSecrets, changed: () => void) {
  const id = text(w.id);
  const typed = secrets.get(id);
  const location = text(w.ical ?? w.xmltv);
  const isPrivate = location === PRIVATE;
  const stored = secrets.stored ? label('feed.stored') : '';
  const $row = kindRow(line, FEEDS, label('feed.address'));
  const $address = input('ms-w-feed', isPrivate ? (typed.location ?? '') : location, '')
    .attr('type', isPrivate ? 'password' : 'text')
    .appendTo($row);
  const $privateLabel = $('<label style="width: auto; margin: 4px 0 0 105px; display: block">').appendTo($row);
  const $private = $('<input type="checkbox" class="ms-w-feed-private" style="width: auto; margin: 0 4px 0 0">')
    .prop('checked', isPrivate)
    .appendTo($privateLabel);
  $('<span>').text(label('feed.private')).appendTo($privateLabel);
  const placeholder = () =>
    $address.attr(
      'placeholder',
      $private.prop('checked') ? stored || label('feed.privatePlaceholder') : label('feed.placeholder'),
    );
  placeholder();
  $private.on('change', () => {
    // the address typed so far is not shown in clear when it becomes private, nor kept when it stops being
    $address.val('').attr('type', $private.prop('checked') ? 'password' : 'text');
    placeholder();
    changed();
  });
  $address.on('change keyup input', changed);
  const $user = input('ms-w-feed-user', typed.user, stored || label('feed.user')).css('width', '140px');
  const $password = input('ms-w-feed-password', typed.password, stored || label('feed.password'), 'password');
  const $token = input('ms-w-feed-token', typed.token, stored || label('feed.token'), 'password');
  const $auth = kindRow(line, FEEDS, label('feed.login'));
  $user.appendTo($auth);
  $password.css({ width: '140px', 'margin-left': '6px' }).appendTo($auth);
  $token.css({ width: 'calc(100% - 115px)', display: 'block', margin: '4px 0 0 105px' }).appendTo($auth);
  for (const $f of [$user, $password, $token]) $f.on('change keyup input', changed);
  noteLine('ms-w-feed-note', label(secrets.stored ? 'tip.feedStored' : 'tip.feedSecrets')).appendTo($auth);
  return {
    location: () => ($private.prop('checked') ? PRIVATE : String($address.val() ?? '').trim()),
    secret(): FeedSecret {
      const v = ($f: JQuery) => String($f.val() ?? '').trim();
      const secret: FeedSecret = {};
      if ($private.prop('checked') && v($address)) secret.location = v($address);
      if (v($user)) secret.user = v($user);
      if (String($password.val() ?? '')) secret.password = String($password.val());
      if (v($token)) secret.token = v($token);
      return secret;
    },
  };
}

/** The guide's rules besides the title: channels, categories, days, a time range, new only, duplicates. */
function guideRows(line: Line, label: (k: string) => string, match: Doc, changed: () => void) {
  const only = ['xmltv'] as WindowKind[];
  const $channel = input('ms-w-match-channel', match.channel, 'bbc1.uk, bbc2.uk').appendTo(
    kindRow(line, only, label('feed.channel')),
  );
  const $categories = input('ms-w-match-categories', match.categories, 'News, Documentary').appendTo(
    kindRow(line, only, label('feed.categories')),
  );
  const $days = kindRow(line, only, label('feed.days'));
  const chosen = new Set(Array.isArray(match.days) ? match.days.map(String) : []);
  for (const day of GUIDE_DAYS) {
    const $l = $('<label style="width: auto; margin-right: 8px"></label>').appendTo($days);
    $('<input type="checkbox" class="ms-w-match-day" style="width: auto; margin: 0 3px 0 0">')
      .attr('data-day', day)
      .prop('checked', chosen.has(day))
      .appendTo($l)
      .on('change', changed);
    $('<span>')
      .text(label(`day.${day}`))
      .appendTo($l);
  }
  const $between = checked(
    kindRow(line, only, label('feed.between')),
    input('ms-w-match-between', match.between, '17:00-21:00'),
    (v) => (v === '' || /^\d{1,2}:\d{2}\s*-\s*\d{1,2}:\d{2}$/.test(v) ? undefined : label('error.between')),
    changed,
  );
  const $flags = kindRow(line, only, label('feed.newOnly'));
  const $new = $('<input type="checkbox" class="ms-w-match-new" style="width: auto">')
    .prop('checked', typeof match.new_only === 'boolean' ? match.new_only : DEFAULTS.new_only)
    .appendTo($flags)
    .on('change', changed);
  const $dups = $('<select class="ms-w-match-duplicates" style="width: auto; margin-left: 12px">').appendTo($flags);
  for (const v of ['', 'once', 'all'])
    $('<option>')
      .val(v)
      .text(v ? label(`feed.duplicates.${v}`) : shownDefault(label, 'duplicates'))
      .appendTo($dups);
  $dups.val(typeof match.duplicates === 'string' ? match.duplicates : '').on('change', changed);
  const list = ($f: JQuery) =>
    String($f.val() ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return (m: Doc) => {
    const channels = list($channel);
    if (channels.length > 0) m.channel = channels.length === 1 ? channels[0] : channels;
    const categories = list($categories);
    if (categories.length > 0) m.categories = categories;
    const days = $days
      .find('.ms-w-match-day:checked')
      .map((_i, el) => String($(el).attr('data-day')))
      .get();
    if (days.length > 0) m.days = days;
    if (String($between.val() ?? '').trim()) m.between = String($between.val()).trim();
    if ($new.prop('checked')) m.new_only = true;
    if ($dups.val()) m.duplicates = String($dups.val());
  };
}

/** Guide channel → live source, one `channel = source id` a line. */
function sourcesText(value: unknown): string {
  return Object.entries(obj(value))
    .map(([k, v]) => `${k} = ${text(v)}`)
    .join('\n');
}

function readSources(textValue: string): Doc | undefined {
  const out: Doc = {};
  for (const raw of textValue.split('\n')) {
    const at = raw.indexOf('=');
    if (at <= 0) continue;
    const key = raw.slice(0, at).trim();
    const value = raw.slice(at + 1).trim();
    if (key && value) out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const val = ($f: JQuery) => String($f.val() ?? '').trim();
const duration = (v: string) => (/^\d+$/.test(v) ? Number(v) : v);

/** Padding before and after, side by side; its reader. */
function paddingRow(line: Line, label: (k: string) => string, padding: Doc, changed: () => void) {
  const $padRow = kindRow(line, DATED, label('feed.padding'));
  const $before = checked(
    $padRow,
    input('ms-w-padding-before', padding.before, label('feed.before')),
    durationCheck(true),
    changed,
  );
  const $after = checked(
    $padRow,
    input('ms-w-padding-after', padding.after, label('feed.after')),
    durationCheck(true),
    changed,
  );
  $before.css('width', '120px');
  $after.css({ width: '120px', 'margin-left': '6px' }).insertAfter($before);
  return (doc: Doc) => {
    const pad: Doc = {};
    if (val($before)) pad.before = duration(val($before));
    if (val($after)) pad.after = duration(val($after));
    if (Object.keys(pad).length > 0) doc.padding = pad;
  };
}

/** The fields whose default the form states (in a placeholder or a select's first option). */
export type ShownDefault =
  | 'refresh'
  | 'on_cancel'
  | 'default_duration'
  | 'duplicates'
  | 'rerecord_within'
  | 'rerecord_min_lost';

/**
 * What the form says a field does when left empty, from the table the runtime reads its defaults from
 * (lib/schedule/feed-defaults.ts): "duplicates: default (record all)", "default: keep recording", "15m",
 * "the window's duration (1h unless it names one)".
 */
export function shownDefault(label: (k: string) => string, field: ShownDefault): string {
  switch (field) {
    case 'refresh':
      return DEFAULTS.refresh;
    case 'on_cancel':
      return label('feed.cancel.default').replace('{value}', label(`feed.cancel.short.${DEFAULTS.on_cancel}`));
    case 'default_duration':
      return label('feed.windowDuration').replace('{value}', DEFAULTS.duration);
    case 'duplicates':
      return label('feed.duplicates.default').replace('{value}', label(`feed.duplicates.short.${DEFAULTS.duplicates}`));
    case 'rerecord_within':
      return label('feed.cancel.default').replace('{value}', formatDuration(DEFAULT_RERECORD.within));
    case 'rerecord_min_lost':
      return label('feed.cancel.default').replace('{value}', `${Math.round(DEFAULT_RERECORD.minLost * 100)}%`);
  }
}

/** Refresh, what a cancellation does, all-day events and the default length, the guide's sources; their reader. */
function optionRows(line: Line, label: (k: string) => string, w: Doc, changed: () => void) {
  const $refresh = checked(
    kindRow(line, FEEDS, label('feed.refresh')),
    input('ms-w-refresh', w.refresh, shownDefault(label, 'refresh')),
    durationCheck(false),
    changed,
  );
  const $cancel = $('<select class="ms-w-on-cancel" style="width: auto">').appendTo(
    kindRow(line, FEEDS, label('feed.onCancel')),
  );
  for (const v of ['', 'keep', 'stop'])
    $('<option>')
      .val(v)
      .text(v ? label(`feed.cancel.${v}`) : shownDefault(label, 'on_cancel'))
      .appendTo($cancel);
  $cancel.val(typeof w.on_cancel === 'string' ? w.on_cancel : '').on('change', changed);
  const $allDay = $('<input type="checkbox" class="ms-w-all-day" style="width: auto">')
    .prop('checked', typeof w.all_day === 'boolean' ? w.all_day : DEFAULTS.all_day)
    .appendTo(kindRow(line, ['ical'], label('feed.allDay')))
    .on('change', changed);
  const $length = checked(
    kindRow(line, ['ical'], label('feed.defaultDuration')),
    input('ms-w-default-duration', w.default_duration, shownDefault(label, 'default_duration')),
    durationCheck(false),
    changed,
  );
  const $sources = $('<textarea class="ms-w-sources" rows="3" style="width: calc(100% - 110px)">')
    .attr('placeholder', 'bbc1.uk = 3c0f…')
    .val(sourcesText(w.sources))
    .appendTo(kindRow(line, ['xmltv'], label('feed.sources'), true))
    .on('change keyup input', changed);
  noteLine('ms-w-messages-note', label('tip.messages')).appendTo(kindRow(line, ['messages'], label('feed.messages')));
  const rerecord = rerecordRow(line, label, w.rerecord, changed);
  return (doc: Doc, kind: WindowKind) => {
    if (val($refresh)) doc.refresh = duration(val($refresh));
    if ($cancel.val()) doc.on_cancel = String($cancel.val());
    if (kind === 'ical' && $allDay.prop('checked')) doc.all_day = true;
    if (kind === 'ical' && val($length)) doc.default_duration = duration(val($length));
    const sources = kind === 'xmltv' ? readSources(String($sources.val() ?? '')) : undefined;
    if (sources) doc.sources = sources;
    rerecord(doc);
  };
}

/** A share as the runtime reads `min_lost`: `10%`, or a fraction from 0 to 1. */
function shareOk(v: string): boolean {
  const n = /^\d+(\.\d+)?\s*%$/.test(v) ? Number.parseFloat(v) / 100 : /^\d+(\.\d+)?$/.test(v) ? Number(v) : NaN;
  return n >= 0 && n <= 1;
}

/**
 * "Re-record": a missed slot recorded at the programme's next airing (lib/schedule/rerecord); `true` with the
 * defaults, or `{within, min_lost}` when either is typed. The defaults shown are the runtime's.
 */
function rerecordRow(line: Line, label: (k: string) => string, value: unknown, changed: () => void) {
  const given = obj(value);
  const $row = kindRow(line, FEEDS, label('feed.rerecord'));
  const $on = $('<input type="checkbox" class="ms-w-rerecord" style="width: auto">')
    .prop('checked', value === true || Object.keys(given).length > 0)
    .appendTo($row)
    .on('change', () => {
      toggle();
      changed();
    });
  $('<span class="ms-w-rerecord-text">')
    .text(` ${label('feed.rerecordText')}`)
    .appendTo($row);
  const $within = checked(
    kindRow(line, FEEDS, label('feed.rerecordWithin')),
    input('ms-w-rerecord-within', given.within, shownDefault(label, 'rerecord_within')),
    durationCheck(false),
    changed,
  );
  const $lost = checked(
    kindRow(line, FEEDS, label('feed.rerecordLost')),
    input('ms-w-rerecord-min-lost', given.min_lost, shownDefault(label, 'rerecord_min_lost')),
    (v) => (v === '' || shareOk(v) ? undefined : label('error.share')),
    changed,
  );
  const toggle = () => {
    const on = $on.prop('checked') === true;
    $within.prop('disabled', !on);
    $lost.prop('disabled', !on);
  };
  toggle();
  return (doc: Doc) => {
    if ($on.prop('checked') !== true) return;
    const within = val($within);
    const lost = val($lost);
    if (!within && !lost) {
      doc.rerecord = true;
      return;
    }
    doc.rerecord = {
      ...(within ? { within: duration(within) } : {}),
      ...(lost ? { min_lost: /^[\d.]+$/.test(lost) ? Number(lost) : lost } : {}),
    };
  };
}

/**
 * The window form's fields for calendar, guide and messages windows: the feed
 * address and its secrets, the match rules, padding, refresh, what a
 * cancellation does, all-day events and the default length (calendar), the
 * channel → source map (guide). A messages window has no feed: the form says
 * where its occurrences come from.
 */
export function feedFields(
  line: Line,
  label: (k: string) => string,
  w: Doc,
  secrets: FeedSecrets,
  changed: () => void,
): FeedForm {
  const match = obj(w.match);
  const address = addressRows(line, label, w, secrets, changed);
  const $title = checked(
    kindRow(line, FEEDS, label('feed.title')),
    input('ms-w-match-title', match.title, '^REC '),
    regexCheck,
    changed,
    runtimePatternCheck,
  );
  const guide = guideRows(line, label, match, changed);
  const pad = paddingRow(line, label, obj(w.padding), changed);
  const options = optionRows(line, label, w, changed);
  return {
    read(doc, kind) {
      if (kind === 'ical' || kind === 'xmltv') {
        doc[kind] = address.location();
        const m: Doc = {};
        // a pattern keeps its spaces: "^REC " is not "^REC"
        if (val($title)) m.title = String($title.val());
        if (kind === 'xmltv') guide(m);
        if (Object.keys(m).length > 0) doc.match = m;
      } else if (kind === 'messages') doc.messages = true;
      pad(doc);
      if (kind !== 'messages') options(doc, kind);
    },
    secret: address.secret,
  };
}
