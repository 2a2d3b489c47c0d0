import type { WindowModel } from './types';

/** The editor list of windows: one row of fields per window. */
export interface WindowList {
  fill(windows: unknown): void;
  read(): WindowModel[];
}

const TEXT_FIELDS = [
  ['ms-w-id', 'id', 'evening-news'],
  ['ms-w-name', 'name', 'Evening news'],
  ['ms-w-cron', 'cron', '0 18 * * mon-fri'],
  ['ms-w-timezone', 'timezone', 'Europe/London'],
  ['ms-w-duration', 'duration', '1h30m'],
] as const;

const JSON_FIELDS = [
  ['ms-w-channel', 'channel', '{"source_id": "...", "tags": ["news"]}'],
  [
    'ms-w-followup',
    'followup',
    '{"workflow_id": "...", "media_nicknames": {"Source": "{{channel.recording.outputs[0].location_url}}"}}',
  ],
] as const;

function jsonText(value: unknown): string {
  if (value === undefined || value === null || value === '') return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function isWindow(value: unknown): value is WindowModel {
  return typeof value === 'object' && value !== null && 'id' in value && value.id !== undefined;
}

function addRow(row: JQuery, index: number, data: unknown, label: (key: string) => string, changed: () => void): void {
  const w: Partial<WindowModel> = isWindow(data)
    ? data
    : { id: `window-${index + 1}`, cron: '0 18 * * *', duration: '1h' };
  const line = (text: string, top = false) => {
    const r = $('<div class="form-row" style="margin-bottom: 4px"></div>').appendTo(row);
    $(`<label style="width: 100px${top ? '; vertical-align: top' : ''}"></label>`)
      .text(text)
      .appendTo(r);
    return r;
  };
  for (const [cls, key, placeholder] of TEXT_FIELDS) {
    const value = w[key];
    $('<input type="text" style="width: calc(100% - 110px)">')
      .addClass(cls)
      .attr('placeholder', placeholder)
      .val(value === undefined || value === null ? '' : String(value))
      .appendTo(line(label(`window.${key}`)))
      .on('change keyup input', changed);
  }
  $('<input type="checkbox" class="ms-w-enabled" style="width: auto">')
    .prop('checked', w.enabled !== false)
    .appendTo(line(label('window.enabled')))
    .on('change', changed);
  for (const [cls, key, placeholder] of JSON_FIELDS) {
    $('<textarea rows="3" style="width: calc(100% - 110px); font-family: monospace"></textarea>')
      .addClass(cls)
      .attr('placeholder', placeholder)
      .val(jsonText(w[key]))
      .appendTo(line(label(`window.${key}`), true))
      .on('change keyup input', changed);
  }
}

function readRow(row: JQuery): WindowModel {
  const text = (cls: string) => String(row.find(`.${cls}`).val() || '').trim();
  // keys in the order the YAML shows them when the list is turned into text
  const w: Record<string, unknown> = { id: text('ms-w-id') };
  if (text('ms-w-name')) w.name = text('ms-w-name');
  w.cron = text('ms-w-cron');
  if (text('ms-w-timezone')) w.timezone = text('ms-w-timezone');
  const duration = text('ms-w-duration');
  w.duration = /^\d+$/.test(duration) ? Number(duration) : duration;
  if (!row.find('.ms-w-enabled').prop('checked')) w.enabled = false;
  for (const [cls, key] of JSON_FIELDS) {
    const raw = text(cls);
    if (raw === '') continue;
    try {
      w[key] = JSON.parse(raw);
    } catch {
      w[key] = raw; // reported by the preview and at deploy
    }
  }
  return w as WindowModel;
}

export function createWindowList(label: (key: string) => string, changed: () => void): WindowList {
  const list = $('#node-input-windows-container');
  list
    .css('min-height', '150px')
    .css('min-width', '450px')
    .editableList({
      addItem: (row: JQuery, index: number, data: unknown) => addRow(row, index, data, label, changed),
      removeItem: changed,
      sortable: true,
      removable: true,
    });
  const fill = (windows: unknown) => {
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
  return { fill, read };
}
