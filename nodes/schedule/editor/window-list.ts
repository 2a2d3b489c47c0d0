import { DurationError, parseDuration } from '../../../lib/schedule/duration';
import { ID_PATTERN } from '../../../lib/schedule/ids';
import type { FeedSecret } from '../../../lib/schedule/sources/feed-access';
import { isValidTimeZone } from '../../../lib/schedule/tz';
import { cronFields } from './cron-fields';
import { type FeedForm, feedFields, kindOf, showKind, WINDOW_KINDS, type WindowKind } from './feed-fields';
import type { FeedSecrets } from './feed-secrets';
import { type FeedTestContext, feedTestRow } from './feed-test';
import { errorLine, fieldError, noteLine, zoneDatalist } from './field-error';
import { type FollowupForm, followupForm } from './followup-form';
import { CHANNEL_FIELDS, objectFields } from './template-fields';
import type { FollowupShared, WindowModel } from './types';

/** The editor list of windows: one row of fields per window. */
export interface WindowList {
  fill(windows: unknown): void;
  read(): WindowModel[];
  /** each window's follow-up form */
  followups(): FollowupForm[];
  /** the feed secrets typed in the list's windows, by window id */
  secrets(): Map<string, FeedSecret>;
}

/** What the feed windows of one dialog share: the secrets typed, and what "Test feed" sends. */
export interface FeedShared {
  secrets: FeedSecrets;
  test: FeedTestContext;
}

const FOLLOWUP_DATA = 'ms-followup';
const FEED_DATA = 'ms-feed';
/** the window's fields of the document that no form shows: carried through the list as they were */
const EXTRA_DATA = 'ms-extra';
const FORM_KEYS = new Set([
  'id',
  'name',
  'cron',
  'timezone',
  'duration',
  'enabled',
  'priority',
  'channel',
  'followup',
  'ical',
  'xmltv',
  'messages',
  'match',
  'padding',
  'refresh',
  'on_cancel',
  'all_day',
  'default_duration',
  'sources',
  'rerecord',
]);

const ZONES_LIST = 'ms-schedule-zones';

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));

function isWindow(value: unknown): value is WindowModel {
  return typeof value === 'object' && value !== null && 'id' in value && value.id !== undefined;
}

type Line = (text: string, top?: boolean) => JQuery;

/** A text field with its own error line, checked as it is typed. */
function checkedField(
  line: Line,
  spec: { cls: string; label: string; value: unknown; placeholder: string; check: (v: string) => string | undefined },
  changed: () => void,
): JQuery {
  const $row = line(spec.label);
  const $field = $('<input type="text" style="width: calc(100% - 110px)">')
    .addClass(spec.cls)
    .attr('placeholder', spec.placeholder)
    .val(text(spec.value))
    .appendTo($row);
  const $error = errorLine(`${spec.cls}-error`).appendTo($row);
  const validate = () => fieldError($field, $error, spec.check(String($field.val() ?? '').trim()));
  $field.on('change keyup input', () => {
    validate();
    changed();
  });
  validate();
  return $field;
}

function durationProblem(v: string): string | undefined {
  try {
    parseDuration(/^\d+$/.test(v) ? Number(v) : v);
    return undefined;
  } catch (err) {
    return err instanceof DurationError ? err.message : String(err);
  }
}

/**
 * The window's own zone: IANA names offered, a bad one flagged when the field is left (every
 * zone name is invalid halfway through typing it), cleared as soon as it is right, and a note
 * on which zone wins.
 */
function zoneField(line: Line, label: (key: string) => string, value: unknown, changed: () => void): void {
  const $row = line(label('window.timezone'));
  const $zone = $('<input type="text" style="width: calc(100% - 110px)">')
    .addClass('ms-w-timezone')
    .attr('placeholder', label('placeholder.windowZone'))
    .attr('list', ZONES_LIST)
    .val(text(value))
    .appendTo($row);
  const $error = errorLine('ms-w-timezone-error').appendTo($row);
  zoneCheck($zone, $error, label, changed);
  noteLine('ms-w-timezone-note', label('tip.windowZone')).appendTo($row);
}

/** A zone field's check: on leaving it (change, blur) and at once when it is already set; while typing only to clear. */
export function zoneCheck($zone: JQuery, $error: JQuery, label: (key: string) => string, changed: () => void): void {
  const problem = () => {
    const v = String($zone.val() ?? '').trim();
    return v === '' || isValidTimeZone(v) ? undefined : `${JSON.stringify(v)} ${label('error.timezone')}`;
  };
  $zone.on('input', () => {
    if (!problem()) fieldError($zone, $error, undefined);
    changed();
  });
  $zone.on('change blur', () => {
    fieldError($zone, $error, problem());
    changed();
  });
  fieldError($zone, $error, problem());
}

/** Where the window's times come from: cron, a calendar, a programme guide, or messages. */
function kindSelect(line: Line, label: (key: string) => string, kind: WindowKind, changed: () => void): JQuery {
  const $kind = $('<select class="ms-w-kind" style="width: auto">').appendTo(line(label('window.kind')));
  for (const k of WINDOW_KINDS)
    $('<option>')
      .val(k)
      .text(label(`kind.${k}`))
      .appendTo($kind);
  return $kind.val(kind).on('change', changed);
}

/** The rows of a window's times: cron and duration, or a feed's fields and its "Test feed". */
function timeRows(row: JQuery, line: Line, w: Partial<WindowModel>, feeds: FeedShared, changed: () => void): void {
  const label = feeds.test.label;
  const $kind = kindSelect(line, label, kindOf(w), changed);
  const cronLine: Line = (title, top) => line(title, top).addClass('ms-w-kind-row').attr('data-kinds', 'cron');
  cronFields(cronLine, label, text(w.cron), changed);
  checkedField(
    cronLine,
    {
      cls: 'ms-w-duration',
      label: label('window.duration'),
      value: w.duration,
      placeholder: '1h30m',
      check: durationProblem,
    },
    changed,
  );
  const feed = feedFields(line, label, w, feeds.secrets, changed);
  feedTestRow(line, feeds.test, () => ({ window: readRow(row), secret: feed.secret() }));
  row.data(FEED_DATA, feed);
  row.data(EXTRA_DATA, Object.fromEntries(Object.entries(w).filter(([k]) => !FORM_KEYS.has(k))));
  const show = () => showKind(row, String($kind.val()) as WindowKind);
  $kind.on('change', show);
  show();
}

function addRow(
  row: JQuery,
  index: number,
  data: unknown,
  shared: FollowupShared,
  feeds: FeedShared,
  changed: () => void,
): void {
  const { label } = shared;
  const added = !isWindow(data);
  const w: Partial<WindowModel> = added
    ? { id: `window-${index + 1}`, cron: '0 18 * * mon-fri', duration: '1h' }
    : data;
  const body = windowHead(row, label, () => readRow(row), changed);
  const line: Line = (title, top = false) => {
    const r = $('<div class="form-row" style="margin-bottom: 4px"></div>').appendTo(body);
    $('<label>')
      .css({ width: '100px', ...(top ? { 'vertical-align': 'top' } : {}) })
      .text(title)
      .appendTo(r);
    return r;
  };
  checkedField(
    line,
    {
      cls: 'ms-w-id',
      label: label('window.id'),
      value: w.id,
      placeholder: 'evening-news',
      check: (v) => (ID_PATTERN.test(v) ? undefined : label('error.id')),
    },
    changed,
  );
  $('<input type="text" class="ms-w-name" style="width: calc(100% - 110px)" placeholder="Evening news">')
    .val(text(w.name))
    .appendTo(line(label('window.name')))
    .on('change keyup input', changed);
  timeRows(row, line, w, feeds, changed);
  zoneField(line, label, w.timezone, changed);
  $('<input type="checkbox" class="ms-w-enabled" style="width: auto">')
    .prop('checked', w.enabled !== false)
    .appendTo(line(label('window.enabled')))
    .on('change', changed);
  checkedField(
    line,
    {
      cls: 'ms-w-priority',
      label: label('window.priority'),
      value: w.priority,
      placeholder: label('placeholder.priority'),
      check: (v) => (v === '' || /^-?\d{1,4}$/.test(v) ? undefined : label('error.priority')),
    },
    changed,
  );
  let followup: FollowupForm | undefined;
  const channel = objectFields(
    line,
    label,
    {
      labels: 'channel',
      jsonCls: 'ms-w-channel',
      jsonLabel: label('window.channel'),
      placeholder: '{"source_id": "...", "tags": ["news"]}',
      fields: CHANNEL_FIELDS,
      value: w.channel,
    },
    () => {
      followup?.channelChanged();
      changed();
    },
  );
  followup = followupForm(line, shared, w.followup, () => channel.read() ?? {}, changed);
  row.data(FOLLOWUP_DATA, followup);
  row.trigger(SUMMARY_EVENT);
  if (added) showAdded(row);
}

/** Asks a window's head to say again what the window is (after its fields changed). */
const SUMMARY_EVENT = 'ms-window-summary';

/**
 * A window's head: a button that folds its form away and back, and a line that says what the window is
 * ("evening-news · Evening news · cron 0 18 * * mon-fri"), so that a long list can be read folded. The form
 * itself is the returned body, in the list at its full height: the list has no scroll box of its own, the
 * dialog is the one scroll area, so every field of a window is shown whole.
 */
function windowHead(row: JQuery, label: (key: string) => string, read: () => WindowModel, changed: () => void): JQuery {
  const $head = $('<div class="ms-w-head">')
    .css({ display: 'flex', 'align-items': 'center', gap: '6px', 'margin-bottom': '6px' })
    .appendTo(row);
  const $toggle = $('<button type="button" class="red-ui-button red-ui-button-small ms-w-toggle">')
    .attr('aria-expanded', 'true')
    .attr('title', label('window.fold'))
    .append($('<i class="fa fa-caret-down"></i>'))
    .appendTo($head);
  const $summary = $('<span class="ms-w-summary">')
    .css({ 'font-weight': 'bold', overflow: 'hidden', 'text-overflow': 'ellipsis', 'white-space': 'nowrap' })
    .appendTo($head);
  const $body = $('<div class="ms-w-body">').appendTo(row);
  const summarise = () => {
    const w = read();
    const kind = kindOf(w);
    const when =
      kind === 'cron' ? `cron ${text(w.cron)}` : kind === 'messages' ? label('kind.messages') : label(`kind.${kind}`);
    // set as text: names are the user's
    $summary.text([w.id, w.name, when].filter((part) => text(part) !== '').join(' · '));
    $summary.attr('title', $summary.text());
  };
  row.on(SUMMARY_EVENT, summarise);
  $body.on('change input', () => summarise());
  $toggle.on('click', () => {
    const open = $toggle.attr('aria-expanded') !== 'true';
    $toggle.attr('aria-expanded', String(open)).attr('title', label(open ? 'window.fold' : 'window.unfold'));
    $toggle.find('i').toggleClass('fa-caret-down', open).toggleClass('fa-caret-right', !open);
    $body.toggle(open);
    row.closest('li').toggleClass('ms-w-folded', !open);
    changed();
  });
  return $body;
}

/**
 * A window added with "add": its top in view (Node-RED's list would scroll to its last field) and
 * its suggested id selected, so that typing replaces it instead of appending to it.
 */
function showAdded(row: JQuery): void {
  setTimeout(() => {
    // the list has no scroll box of its own: the dialog scrolls to the new window's top
    row.closest('li')[0]?.scrollIntoView({ block: 'start' });
    const $id = row.find('.ms-w-id');
    $id.trigger('focus');
    ($id[0] as HTMLInputElement | undefined)?.select();
  }, 0);
}

function readRow(row: JQuery): WindowModel {
  const value = (cls: string) => String(row.find(`.${cls}`).val() || '').trim();
  // keys in the order the YAML shows them when the list is turned into text
  const w: Record<string, unknown> = { id: value('ms-w-id') };
  if (value('ms-w-name')) w.name = value('ms-w-name');
  const kind = (value('ms-w-kind') || 'cron') as WindowKind;
  if (kind === 'cron') w.cron = value('ms-w-cron');
  else (row.data(FEED_DATA) as FeedForm | undefined)?.read(w, kind);
  if (value('ms-w-timezone')) w.timezone = value('ms-w-timezone');
  if (kind === 'cron') {
    const duration = value('ms-w-duration');
    w.duration = /^\d+$/.test(duration) ? Number(duration) : duration;
  }
  if (!row.find('.ms-w-enabled').prop('checked')) w.enabled = false;
  const priority = value('ms-w-priority');
  // a whole number as one; anything else as typed, for the preview and the deploy to name
  if (priority !== '') w.priority = /^-?\d+$/.test(priority) ? Number(priority) : priority;
  for (const [cls, key] of [
    ['ms-w-channel', 'channel'],
    ['ms-w-followup', 'followup'],
  ]) {
    const raw = value(cls);
    if (raw === '') continue;
    try {
      w[key] = JSON.parse(raw);
    } catch {
      w[key] = raw; // reported on the field, by the preview and at deploy
    }
  }
  return { ...w, ...(row.data(EXTRA_DATA) as Record<string, unknown> | undefined) } as WindowModel;
}

const CONTROLS_STYLE = 'ms-schedule-window-controls';

/**
 * A window's drag handle and remove button at its head: Node-RED centres them on the item, which put them
 * half way down a form shown whole (static rules, set as text, once per dialog).
 */
function controlsAtHead(): void {
  if (document.getElementById(CONTROLS_STYLE)) return;
  const style = document.createElement('style');
  style.id = CONTROLS_STYLE;
  style.textContent = [
    '#node-input-windows-container > li > .red-ui-editableList-item-handle { top: 14px; margin-top: 0; }',
    '#node-input-windows-container > li > .red-ui-editableList-item-remove { top: 8px; margin-top: 0; }',
  ].join('\n');
  document.getElementById('dialog-form')?.appendChild(style);
}

export function createWindowList(shared: FollowupShared, feeds: FeedShared, changed: () => void): WindowList {
  zoneDatalist(ZONES_LIST);
  controlsAtHead();
  const list = $('#node-input-windows-container');
  list.css('min-width', '450px').editableList({
    // each window's form at its full height: the dialog, not the list, is what scrolls
    height: 'auto',
    addItem: (row: JQuery, index: number, data: unknown) => addRow(row, index, data, shared, feeds, changed),
    removeItem: changed,
    sortable: true,
    removable: true,
    // Node-RED scrolls to the bottom of each item added: filling the list would open it at the end
    // of the last window; an added window is shown from its top instead (showAdded)
    scrollOnAdd: false,
  });
  // set after the widget is made: a min-height the widget finds would become the list's fixed height
  list.closest('.red-ui-editableList-container').css('min-height', '60px');
  const followups = () => {
    const forms: FollowupForm[] = [];
    // a closed dialog's list is gone (with its widget); a late answer or event finds no forms
    if (!document.body.contains(list[0])) return forms;
    (list.editableList('items') as JQuery).each(function () {
      const form = $(this).data(FOLLOWUP_DATA) as FollowupForm | undefined;
      if (form) forms.push(form);
    });
    return forms;
  };
  const rows = (): JQuery[] => {
    if (!document.body.contains(list[0])) return [];
    return (list.editableList('items') as JQuery).toArray().map((el) => $(el));
  };
  const secrets = () => {
    const typed = new Map<string, FeedSecret>();
    for (const row of rows()) {
      const form = row.data(FEED_DATA) as FeedForm | undefined;
      const id = String(row.find('.ms-w-id').val() ?? '').trim();
      // a window that reads no feed (any more) keeps no secret
      const reads = ['ical', 'xmltv'].includes(String(row.find('.ms-w-kind').val()));
      if (form && id) typed.set(id, reads ? form.secret() : {});
    }
    return typed;
  };
  const fill = (windows: unknown) => {
    // secrets typed so far outlive the rows: the rebuilt row of the same window shows them again
    for (const [id, secret] of secrets()) feeds.secrets.set(id, secret);
    for (const form of followups()) form.stop();
    list.editableList('empty');
    for (const w of Array.isArray(windows) ? windows : []) list.editableList('addItem', w);
  };
  const read = () => {
    const windows: WindowModel[] = [];
    const items = list.editableList('items') as JQuery;
    items.each(function () {
      windows.push(readRow($(this)));
    });
    return windows;
  };
  return { fill, read, followups, secrets };
}
