import type { WorkflowInputs, WorkflowParameter } from '../../../lib/schemas';
import { inputKey, isRequiredProblem, requiredInputs, settingsInputProblems } from '../../../lib/submit-input-check';
import { formValues } from './inputs';

interface Row {
  label: string;
  hint?: unknown;
  attrs: Record<string, string>;
  /** the workflow's default, shown as the placeholder or the empty option; '' when it has none */
  fallback: string;
  value: unknown;
  options: string[] | null;
  /** the key of this input in the library's verdict; a label parameter also answers for its label */
  keys: string[];
  required: boolean;
}

/** A row as the verdict reaches it. */
interface Shown {
  keys: string[];
  $field: JQuery;
  $problem: JQuery;
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
  // every label is written, empty when nothing is typed: the service requires each declared label,
  // and its parameters' defaults apply
  const labels: Record<string, Record<string, unknown>> = {};
  $form.find('[data-parameter]').each(function () {
    const id = String($(this).attr('data-label'));
    labels[id] ??= {};
    const value = String($(this).val() ?? '');
    if (value !== '') labels[id][String($(this).attr('data-parameter'))] = value;
  });
  if (Object.keys(labels).length > 0) out.labels = labels;
  $('#node-input-jobInputs').typedInput('type', 'json');
  $('#node-input-jobInputs').typedInput('value', Object.keys(out).length > 0 ? JSON.stringify(out) : '');
}

const LABEL_PX = 170;
const FIELD_WIDTH = `calc(100% - ${LABEL_PX + 10}px)`;

/**
 * One field: typecode in the label, a mark when the workflow has no default, the default as the
 * placeholder (or as the empty choice of a list), the node's verdict below it.
 */
function addRow($form: JQuery, row: Row): Shown {
  const $row = $('<div class="form-row">').appendTo($form);
  // long names (VideoBitrateKbps (Int32)) wrap in a wider label instead of being cut; the tooltip has it all
  const hint = text(row.hint);
  const $label = $('<label>')
    .text(row.label)
    .attr('title', hint ? `${row.label}: ${hint}` : row.label)
    .css({ width: `${LABEL_PX}px`, 'white-space': 'normal', 'overflow-wrap': 'anywhere', 'vertical-align': 'top' })
    .appendTo($row);
  if (row.required) {
    $('<span class="ms-input-required">')
      .text(' *')
      .attr('title', 'required: the workflow has no default')
      .css('color', '#c00')
      .appendTo($label);
  }
  let $field: JQuery;
  if (row.options) {
    $field = $('<select>').css('width', FIELD_WIDTH);
    // the empty choice sends nothing: the workflow's default, or, where it has none, a required input left out
    $('<option>')
      .val('')
      .text(row.fallback !== '' ? `(default: ${row.fallback})` : '(choose)')
      .appendTo($field);
    for (const o of row.options) $('<option>').val(o).text(o).appendTo($field);
  } else {
    $field = $('<input type="text">')
      .css('width', FIELD_WIDTH)
      .attr('placeholder', row.fallback !== '' ? row.fallback : row.required ? 'required' : '');
  }
  $field.attr(row.attrs).attr('data-required', String(row.required)).appendTo($row);
  $field.val(text(row.value));
  const $problem = $('<div class="ms-input-problem">')
    .css({ 'margin-left': `${LABEL_PX + 5}px`, 'font-size': '0.9em', color: '#c00' })
    .appendTo($row);
  return { keys: row.keys, $field, $problem };
}

/**
 * Shows the library's verdict on the Inputs JSON on each field: what the node will say at runtime.
 * `fromMessage`: a schedule's follow-up gives the inputs, so one left empty is said to come from the
 * message instead of being marked missing.
 */
function showVerdict(declared: WorkflowInputs, rows: Shown[], fromMessage: boolean, note: string): void {
  let parsed: unknown = {};
  try {
    const json = String($('#node-input-jobInputs').typedInput('value') ?? '');
    parsed = json.trim() === '' || $('#node-input-jobInputsType').val() !== 'json' ? {} : JSON.parse(json);
  } catch {
    // the Inputs box says what is wrong with its JSON
  }
  const problems = settingsInputProblems(parsed, declared);
  for (const row of rows) {
    const found = row.keys.map((k) => problems[k]).find((p) => p !== undefined) ?? null;
    const given = fromMessage && found !== null && isRequiredProblem(found);
    const problem = given ? null : found;
    row.$field.toggleClass('input-error', Boolean(problem));
    row.$problem.text(given ? note : (problem ?? '')).css('color', given ? '' : '#c00');
    row.$problem.toggleClass('ms-input-from-message', given);
  }
}

function optionsOf(param: WorkflowParameter): string[] | null {
  if (param.options && Object.keys(param.options).length > 0) {
    return [...new Set(Object.values(param.options).flatMap((list) => list ?? []))];
  }
  return param.typecode === 'Boolean' ? ['true', 'false'] : null;
}

/** A field per declared input, each checked with the rules the node applies at runtime. */
export function buildForm(declared: WorkflowInputs, fromMessage = false, note = ''): void {
  const $form = $('#node-media-spaces-inputs-form').empty();
  const current = formValues(String($('#node-input-jobInputs').typedInput('value') ?? ''));
  const useJson = $('#node-input-jobInputsType').val() === 'json';
  const given = (values: Record<string, unknown>, key: string) => (useJson ? values[key] : undefined);
  const required = requiredInputs(declared);
  const rows: Shown[] = [];
  const add = (row: Omit<Row, 'required'>) =>
    rows.push(addRow($form, { ...row, required: required.has(row.keys[0] ?? '') }));
  for (const v of declared.variables ?? []) {
    add({
      label: `${v.name} (${v.typecode})`,
      hint: v.description,
      attrs: { 'data-variable': v.name },
      fallback: text(v.default),
      value: given(current.variables, v.name),
      options: v.typecode === 'Boolean' ? ['true', 'false'] : null,
      keys: [inputKey.variable(v.name)],
    });
  }
  for (const n of declared.media_nicknames ?? []) {
    add({
      label: `${n.name || n.identifier} (media)`,
      hint: n.description,
      attrs: { 'data-nickname': n.identifier ?? '' },
      fallback: n.files?.[0] || '',
      value: given(current.media_nicknames, n.identifier ?? ''),
      options: null,
      keys: [inputKey.nickname(n.identifier ?? '')],
    });
  }
  for (const a of declared.attachments ?? []) {
    add({
      label: `${a.name || a.identifier} (attachment)`,
      hint: a.description,
      attrs: { 'data-attachment': a.identifier ?? '' },
      fallback: a.file || '',
      value: given(current.attachments, a.identifier ?? ''),
      options: null,
      keys: [inputKey.attachment(a.identifier ?? '')],
    });
  }
  for (const l of declared.labels ?? []) {
    const id = l.identifier ?? '';
    for (const p of l.parameters ?? []) {
      add({
        label: `${l.name || id}: ${p.name} (${p.typecode})`,
        hint: p.description,
        attrs: { 'data-label': id, 'data-parameter': p.name },
        fallback: text(p.default_value),
        value: useJson ? current.labels[id]?.[p.name] : undefined,
        options: optionsOf(p),
        keys: [inputKey.parameter(id, p.name), inputKey.label(id)],
      });
    }
  }
  for (const row of rows) {
    row.$field.on('input change', () => {
      writeInputs($form);
      showVerdict(declared, rows, fromMessage, note);
    });
  }
  showVerdict(declared, rows, fromMessage, note);
  $form.toggle($form.children().length > 0);
}
