import { DEFAULT_CHANNEL_NAME, DEFAULT_JOB_NAME } from '../../../lib/schedule/default-names';
import { errorLine, fieldError } from './field-error';

/** A form field for one key of a window's channel or follow-up object. */
interface TemplateField {
  cls: string;
  key: string;
  kind: 'text' | 'checkbox' | 'hours';
  placeholder?: string;
}

export const CHANNEL_FIELDS: TemplateField[] = [
  { cls: 'ms-w-ch-name', key: 'name', kind: 'text', placeholder: DEFAULT_CHANNEL_NAME },
  { cls: 'ms-w-ch-description', key: 'description', kind: 'text' },
  { cls: 'ms-w-ch-continuous', key: 'continuous_recording', kind: 'checkbox' },
  { cls: 'ms-w-ch-recording', key: 'recording_duration', kind: 'hours', placeholder: 'hours, e.g. 2' },
];

/** The follow-up's workflow and inputs have a form of their own (followup-form.ts). */
export const FOLLOWUP_FIELDS: TemplateField[] = [
  { cls: 'ms-w-fu-jobname', key: 'job_name', kind: 'text', placeholder: DEFAULT_JOB_NAME },
];

/** The JSON box of an object, for the forms beside it that write into it too. */
export interface ObjectBox {
  /** the row of the JSON box (other rows of the object go before it) */
  $jsonRow: JQuery;
  /** the object, or undefined while the box holds no JSON object */
  read(): Record<string, unknown> | undefined;
  /** writes the object into the box (and its fields) */
  write(value: Record<string, unknown>): void;
}

type Line = (text: string, top?: boolean) => JQuery;

function jsonText(value: unknown): string {
  if (value === undefined || value === null || value === '') return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** The JSON box's object: {} when empty, null when it is not a JSON object (with the reason). */
function readObject(text: string): { value: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return { value: {} };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return { value: parsed as Record<string, unknown> };
    }
    return { error: 'must be a JSON object: {"key": value, …}' };
  } catch (err) {
    return { error: `not JSON: ${(err as Error).message}` };
  }
}

function showValue($field: JQuery, field: TemplateField, value: unknown): void {
  if (field.kind === 'checkbox') $field.prop('checked', value === true || value === 'true');
  else $field.val(value === undefined || value === null ? '' : String(value));
}

function fieldValue($field: JQuery, field: TemplateField): unknown {
  if (field.kind === 'checkbox') return $field.prop('checked') ? true : undefined;
  const text = String($field.val() ?? '').trim();
  if (text === '') return undefined;
  // hours as a number; a template ({{...}}) stays text and is rendered per slot
  return field.kind === 'hours' && /^\d+$/.test(text) ? Number(text) : text;
}

/**
 * The form fields of a channel or follow-up object above its JSON box: the
 * JSON stays the whole object (for every other key), and each field writes
 * its key into it, as the JSON's edits show in the fields.
 */
export function objectFields(
  line: Line,
  label: (key: string) => string,
  spec: {
    labels: string;
    jsonCls: string;
    jsonLabel: string;
    placeholder: string;
    fields: TemplateField[];
    value: unknown;
  },
  changed: () => void,
): ObjectBox {
  const inputs = spec.fields.map((field) => {
    const $field =
      field.kind === 'checkbox'
        ? $('<input type="checkbox" style="width: auto">')
        : $('<input type="text" style="width: calc(100% - 110px)">').attr('placeholder', field.placeholder ?? '');
    $field.addClass(field.cls).appendTo(line(label(`${spec.labels}.${field.key}`)));
    return { field, $field };
  });
  const $json = $('<textarea rows="3" style="width: calc(100% - 110px); font-family: monospace"></textarea>')
    .addClass(spec.jsonCls)
    .attr('placeholder', spec.placeholder)
    .val(jsonText(spec.value));
  const $jsonRow = line(spec.jsonLabel, true);
  $json.appendTo($jsonRow);
  const $error = errorLine(`${spec.jsonCls}-error`).appendTo($jsonRow);

  const fromJson = () => {
    const read = readObject(String($json.val() ?? ''));
    fieldError($json, $error, 'error' in read ? read.error : undefined);
    if ('value' in read) for (const { field, $field } of inputs) showValue($field, field, read.value[field.key]);
    return read;
  };
  for (const { field, $field } of inputs) {
    $field.on(field.kind === 'checkbox' ? 'change' : 'input change', () => {
      const read = readObject(String($json.val() ?? ''));
      if ('error' in read) {
        fieldError($json, $error, `${read.error} (fix it to use the fields above)`);
        return;
      }
      const value = fieldValue($field, field);
      if (value === undefined) delete read.value[field.key];
      else read.value[field.key] = value;
      $json.val(Object.keys(read.value).length > 0 ? JSON.stringify(read.value, null, 2) : '');
      changed();
    });
  }
  $json.on('input change', () => {
    fromJson();
    changed();
  });
  fromJson();
  return {
    $jsonRow,
    read() {
      const read = readObject(String($json.val() ?? ''));
      return 'value' in read ? read.value : undefined;
    },
    write(value) {
      $json.val(Object.keys(value).length > 0 ? JSON.stringify(value, null, 2) : '');
      fromJson();
    },
  };
}
