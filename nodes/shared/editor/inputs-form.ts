import type { WorkflowInputs, WorkflowParameter } from '../../../lib/schemas';
import { inputKey, isRequiredProblem, requiredInputs, settingsInputProblems } from '../../../lib/submit-input-check';
import { formValuesOf } from './input-values';

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
  /** values offered by name beside the field (it still takes any value or template) */
  choices?: MediaChoice[];
}

/** A row as the verdict reaches it. */
interface Shown {
  keys: string[];
  $field: JQuery;
  $problem: JQuery;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** The inputs of the short form, as the form writes them. */
export type ShortInputs = Record<string, Record<string, unknown>>;

/** A value a media field can take by name (the schedule's follow-up: "the recording"). */
interface MediaChoice {
  label: string;
  value: string;
}

/** Where an inputs form reads its values and writes what is typed. */
export interface InputsFormHost {
  $form: JQuery;
  /** the inputs now (short or full form, as the node reads them); {} when there are none */
  read(): unknown;
  /** the form's non-empty fields, after one of them changed */
  write(inputs: ShortInputs): void;
  /** offered beside each media nickname, by name */
  mediaChoices?: MediaChoice[];
  /** values may hold templates ({{...}}), filled in later: the editor judges none of them */
  templates?: boolean;
  /**
   * Set when a schedule's follow-up gives the inputs in the message: what an input left empty says instead
   * of being marked missing (the runtime still checks each job's merged inputs)
   */
  fromMessage?: string;
}

/** The form's non-empty fields as short-form inputs; empty fields use the workflow's defaults. */
function formInputs($form: JQuery): ShortInputs {
  const out: ShortInputs = {};
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
  return out;
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
  const $choice = row.choices?.length ? choiceSelect($row, row.choices, $field) : null;
  $field.attr(row.attrs).attr('data-required', String(row.required)).appendTo($row);
  $field.val(text(row.value));
  $choice?.trigger('ms-sync');
  const $problem = $('<div class="ms-input-problem">')
    .css({ 'margin-left': `${LABEL_PX + 5}px`, 'font-size': '0.9em', color: '#c00' })
    .appendTo($row);
  return { keys: row.keys, $field, $problem };
}

const CHOICE_PX = 130;

/**
 * The named values of a field, in a list before it: choosing one writes its value into the field,
 * and the list names the field's value whenever it is one of them ("a value" otherwise).
 */
function choiceSelect($row: JQuery, choices: MediaChoice[], $field: JQuery): JQuery {
  const $select = $('<select class="ms-input-choice">')
    .css({ width: `${CHOICE_PX}px`, 'margin-right': '5px' })
    .appendTo($row);
  $('<option>').val('').text('a value').appendTo($select);
  choices.forEach((c, i) => {
    $('<option>').val(String(i)).text(c.label).attr('title', c.value).appendTo($select);
  });
  $field.css('width', `calc(100% - ${LABEL_PX + CHOICE_PX + 15}px)`);
  const sync = () => {
    const index = choices.findIndex((c) => c.value === String($field.val() ?? ''));
    $select.val(index < 0 ? '' : String(index));
  };
  $select.on('ms-sync', sync);
  $field.on('input change', sync);
  $select.on('change', () => {
    const chosen = choices[Number($select.val())];
    if ($select.val() === '' || !chosen) return;
    $field.val(chosen.value).trigger('change');
  });
  return $select;
}

/** Shows the library's verdict on the inputs on each field: what the node will say at runtime. */
function showVerdict(host: InputsFormHost, declared: WorkflowInputs, rows: Shown[]): void {
  const problems = settingsInputProblems(host.read(), declared);
  for (const row of rows) {
    const later = host.templates === true && String(row.$field.val() ?? '').includes('{{');
    const found = later ? null : (row.keys.map((k) => problems[k]).find((p) => p !== undefined) ?? null);
    const given = host.fromMessage !== undefined && found !== null && isRequiredProblem(found);
    const problem = given ? null : found;
    row.$field.toggleClass('input-error', Boolean(problem));
    row.$problem.text(given ? (host.fromMessage ?? '') : (problem ?? '')).css('color', given ? '' : '#c00');
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
export function buildForm(declared: WorkflowInputs, host: InputsFormHost): void {
  const $form = host.$form.empty();
  const current = formValuesOf(host.read());
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
      value: current.variables[v.name],
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
      value: current.media_nicknames[n.identifier ?? ''],
      options: null,
      keys: [inputKey.nickname(n.identifier ?? '')],
      choices: host.mediaChoices,
    });
  }
  for (const a of declared.attachments ?? []) {
    add({
      label: `${a.name || a.identifier} (attachment)`,
      hint: a.description,
      attrs: { 'data-attachment': a.identifier ?? '' },
      fallback: a.file || '',
      value: current.attachments[a.identifier ?? ''],
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
        value: current.labels[id]?.[p.name],
        options: optionsOf(p),
        keys: [inputKey.parameter(id, p.name), inputKey.label(id)],
      });
    }
  }
  for (const row of rows) {
    row.$field.on('input change', () => {
      host.write(formInputs($form));
      showVerdict(host, declared, rows);
    });
  }
  showVerdict(host, declared, rows);
  $form.toggle($form.children().length > 0);
}
