import type { WorkflowInputs, WorkflowParameter } from '../../../lib/schemas';
import { checkParameter, checkTypecode } from '../../../lib/typecodes';
import { formValues } from './inputs';

type Check = ((value: string) => string | null) | null;

interface Row {
  label: string;
  hint?: unknown;
  attrs: Record<string, string>;
  placeholder: string;
  value: unknown;
  options: string[] | null;
  check: Check;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** Writes the form's non-empty fields into the Inputs JSON (short form); empty fields use the workflow's defaults. */
function writeInputs($form: JQuery): void {
  const out: Record<string, Record<string, unknown>> = {};
  const put = (kind: string, key: string, value: unknown) => {
    out[kind] ??= {};
    out[kind][key] = value;
  };
  const fields: Array<[string, string]> = [
    ['variables', 'data-variable'],
    ['media_nicknames', 'data-nickname'],
    ['attachments', 'data-attachment'],
  ];
  for (const [kind, attr] of fields) {
    $form.find(`[${attr}]`).each(function () {
      const value = String($(this).val() ?? '');
      if (value !== '') put(kind, String($(this).attr(attr)), value);
    });
  }
  const labels: Record<string, Record<string, unknown>> = {};
  $form.find('[data-parameter]').each(function () {
    const value = String($(this).val() ?? '');
    if (value === '') return;
    const id = String($(this).attr('data-label'));
    labels[id] ??= {};
    labels[id][String($(this).attr('data-parameter'))] = value;
  });
  if (Object.keys(labels).length > 0) out.labels = labels;
  $('#node-input-jobInputs').typedInput('type', 'json');
  $('#node-input-jobInputs').typedInput('value', Object.keys(out).length > 0 ? JSON.stringify(out) : '');
}

const LABEL_PX = 170;
const FIELD_WIDTH = `calc(100% - ${LABEL_PX + 10}px)`;

/** One field: typecode in the label, default as placeholder, options as a list, checked as it is typed. */
function addRow($form: JQuery, row: Row): void {
  const $row = $('<div class="form-row">').appendTo($form);
  // long names (VideoBitrateKbps (Int32)) wrap in a wider label instead of being cut; the tooltip has it all
  const hint = text(row.hint);
  $('<label>')
    .text(row.label)
    .attr('title', hint ? `${row.label}: ${hint}` : row.label)
    .css({ width: `${LABEL_PX}px`, 'white-space': 'normal', 'overflow-wrap': 'anywhere', 'vertical-align': 'top' })
    .appendTo($row);
  let $field: JQuery;
  if (row.options) {
    $field = $('<select>').css('width', FIELD_WIDTH);
    $('<option>').val('').text('(default)').appendTo($field);
    for (const o of row.options) $('<option>').val(o).text(o).appendTo($field);
  } else {
    $field = $('<input type="text">').css('width', FIELD_WIDTH).attr('placeholder', row.placeholder);
  }
  $field.attr(row.attrs).appendTo($row);
  $field.val(text(row.value));
  const $problem = $('<div>')
    .css({ 'margin-left': `${LABEL_PX + 5}px`, 'font-size': '0.9em', color: '#c00' })
    .appendTo($row);
  const validate = () => {
    const v = String($field.val() ?? '');
    const problem = v === '' || !row.check ? null : row.check(v);
    $field.toggleClass('input-error', Boolean(problem));
    $problem.text(problem ?? '');
  };
  $field.on('input change', () => {
    validate();
    writeInputs($form);
  });
  $field.on('blur', validate);
  validate();
}

function optionsOf(param: WorkflowParameter): string[] | null {
  if (param.options && Object.keys(param.options).length > 0) {
    return [...new Set(Object.values(param.options).flatMap((list) => list ?? []))];
  }
  return param.typecode === 'Boolean' ? ['true', 'false'] : null;
}

/** A field per declared input, each value checked with the library's typecode rules. */
export function buildForm(declared: WorkflowInputs): void {
  const $form = $('#node-media-spaces-inputs-form').empty();
  const current = formValues(String($('#node-input-jobInputs').typedInput('value') ?? ''));
  const useJson = $('#node-input-jobInputsType').val() === 'json';
  const given = (values: Record<string, unknown>, key: string) => (useJson ? values[key] : undefined);
  for (const v of declared.variables ?? []) {
    addRow($form, {
      label: `${v.name} (${v.typecode})`,
      hint: v.description,
      attrs: { 'data-variable': v.name },
      placeholder: text(v.default),
      value: given(current.variables, v.name),
      options: v.typecode === 'Boolean' ? ['true', 'false'] : null,
      check: (value) => checkTypecode(v.typecode, value),
    });
  }
  for (const n of declared.media_nicknames ?? []) {
    addRow($form, {
      label: `${n.name || n.identifier} (media)`,
      hint: n.description,
      attrs: { 'data-nickname': n.identifier ?? '' },
      placeholder: n.files?.[0] || 's3://bucket/file.mxf',
      value: given(current.media_nicknames, n.identifier ?? ''),
      options: null,
      check: null,
    });
  }
  for (const a of declared.attachments ?? []) {
    addRow($form, {
      label: `${a.name || a.identifier} (attachment)`,
      hint: a.description,
      attrs: { 'data-attachment': a.identifier ?? '' },
      placeholder: a.file || 's3://bucket/file',
      value: given(current.attachments, a.identifier ?? ''),
      options: null,
      check: null,
    });
  }
  for (const l of declared.labels ?? []) {
    const id = l.identifier ?? '';
    for (const p of l.parameters ?? []) {
      addRow($form, {
        label: `${l.name || id}: ${p.name} (${p.typecode})`,
        hint: p.description,
        attrs: { 'data-label': id, 'data-parameter': p.name },
        placeholder: text(p.default_value),
        value: useJson ? current.labels[id]?.[p.name] : undefined,
        options: optionsOf(p),
        check: (value) => checkParameter(p, value),
      });
    }
  }
  $form.toggle($form.children().length > 0);
}
