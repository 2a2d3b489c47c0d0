import { isPlainObject } from './guards';
import { INPUT_KINDS, TYPECODES } from './rules';
import type {
  AttachmentInput,
  LabelInput,
  NickNameInput,
  ParameterInput,
  SubmitJobRequest,
  Typecode,
  VariableInput,
  WorkflowInputs,
} from './schemas';
import { checkParameter, checkTypecode, isTypecode, toWireValue } from './typecodes';

/**
 * Reading a submission's inputs, in either form, and checking each value
 * against its typecode. No zod and no Node built-ins: the submit-job editor
 * bundles this very code, so the form and the node read inputs alike.
 * buildSubmitRequest (./submit-input) adds the request schema on top.
 */

/**
 * A submission in either accepted form:
 * - the description's shape: `{job_name?, usage: {input: {variables: [...], ...}}}`
 * - the short form: `{variables: {Name: value}, media_nicknames: {id: file}, attachments: {id: file},
 *   labels: {id: {Param: value}}}`, where a value may also be `{value, typecode}`.
 */
export type SubmitInput = SubmitJobRequest | ShortSubmitInput;

export interface ShortSubmitInput {
  job_name?: string;
  variables?: Record<string, unknown> | VariableInput[];
  media_nicknames?: Record<string, unknown> | NickNameInput[];
  attachments?: Record<string, unknown> | AttachmentInput[];
  labels?: Record<string, unknown> | LabelInput[];
}

export interface Inputs {
  variables: VariableInput[];
  media_nicknames: NickNameInput[];
  attachments: AttachmentInput[];
  labels: LabelInput[];
}

const SHORT_KEYS = new Set<string>(['job_name', ...INPUT_KINDS]);
const FULL_KEYS = new Set(['job_name', 'usage']);
const VARIABLE_KEYS = new Set(['identifier', 'name', 'typecode', 'default', 'value']);

export type FieldErrors = Record<string, string>;

export function emptyInputs(): Inputs {
  return { variables: [], media_nicknames: [], attachments: [], labels: [] };
}

/** `full`: the description's shape, where each variable carries its own typecode. */
export function readInputs(
  value: unknown,
  where: string,
  errors: FieldErrors,
  declared?: WorkflowInputs,
  full = false,
): Inputs {
  const out = emptyInputs();
  if (!isPlainObject(value)) {
    errors[where] =
      `must be an object with usage.input (or variables, media_nicknames, attachments, labels), got ${describeType(value)}`;
    return out;
  }
  const keys = Object.keys(value);
  const isFull = keys.includes('usage') && keys.every((k) => FULL_KEYS.has(k));
  if (isFull) {
    const usage = value.usage;
    if (usage === undefined || usage === null) return out;
    if (!isPlainObject(usage)) {
      errors.usage = `must be an object {input: {...}}, got ${describeType(usage)}`;
      return out;
    }
    const input = usage.input;
    if (input === undefined || input === null) return out;
    if (!isPlainObject(input)) {
      errors['usage.input'] = `must be an object, got ${describeType(input)}`;
      return out;
    }
    for (const k of Object.keys(input)) {
      if (!SHORT_KEYS.has(k) || k === 'job_name') errors[`usage.input.${k}`] = 'is not a known input kind';
    }
    return readInputs(pick(input), 'usage.input', errors, declared, true);
  }
  for (const k of keys) {
    if (!SHORT_KEYS.has(k)) {
      errors[k] = 'is not a known field (expected job_name, usage, variables, media_nicknames, attachments or labels)';
    }
  }
  out.variables = readVariables(value.variables, errors, declared, full);
  out.media_nicknames = readKeyed(value.media_nicknames, 'media_nicknames', errors, nicknameFrom);
  out.attachments = readKeyed(value.attachments, 'attachments', errors, attachmentFrom);
  out.labels = readKeyed(value.labels, 'labels', errors, (id, v, path, errs) => labelFrom(id, v, path, errs, declared));
  return out;
}

function pick(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of INPUT_KINDS) if (k in input) out[k] = input[k];
  return out;
}

function readVariables(value: unknown, errors: FieldErrors, declared?: WorkflowInputs, full = false): VariableInput[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => {
      if (!isPlainObject(item) || typeof item.name !== 'string' || item.name === '') {
        errors[`variables[${i}]`] = 'must be an object with a name';
        return [];
      }
      const v = variableFrom(item.name, item, `variables.${item.name}`, errors, declared, full);
      return v ? [v] : [];
    });
  }
  if (!isPlainObject(value)) {
    errors.variables = `must be an object {Name: value} or a list of variables, got ${describeType(value)}`;
    return [];
  }
  return Object.entries(value).flatMap(([name, v]) => {
    const variable = variableFrom(name, v, `variables.${name}`, errors, declared);
    return variable ? [variable] : [];
  });
}

function variableFrom(
  name: string,
  raw: unknown,
  path: string,
  errors: FieldErrors,
  declared?: WorkflowInputs,
  full = false,
): VariableInput | undefined {
  const declaredType = declared?.variables?.find((d) => d.name === name)?.typecode;
  const given = isPlainObject(raw) ? raw : { value: raw };
  const unknownKeys = Object.keys(given).filter((k) => !VARIABLE_KEYS.has(k));
  if (unknownKeys.length > 0) {
    errors[path] = `has unknown field(s) ${unknownKeys.join(', ')} (expected value, typecode, default, identifier)`;
    return undefined;
  }
  const value = toWireValue(given.value);
  if (given.value !== undefined && given.value !== null && value === undefined) {
    errors[path] = `value must be a string, number or boolean, got ${describeType(given.value)}`;
    return undefined;
  }
  if (full && (given.typecode === undefined || given.typecode === null) && declaredType === undefined) {
    // WorkflowVariable: "typecode | string | yes"; guessing String would send a value the workflow may not take
    errors[path] =
      "typecode is required: the description requires it on every variable (give typecode, or let the client read the workflow's declared inputs)";
    return undefined;
  }
  const typecode = resolveTypecode(given.typecode ?? declaredType, given.value, path, errors);
  if (!typecode) return undefined;
  const out: VariableInput = { name, typecode };
  if (typeof given.identifier === 'string') out.identifier = given.identifier;
  if (given.default !== undefined) out.default = toWireValue(given.default);
  if (value !== undefined) out.value = value;
  return out;
}

function resolveTypecode(typecode: unknown, value: unknown, path: string, errors: FieldErrors): Typecode | undefined {
  if (typecode !== undefined && typecode !== null) {
    if (isTypecode(typecode)) return typecode;
    errors[path] = `typecode "${String(typecode)}" is not one of ${TYPECODES.join(', ')}`;
    return undefined;
  }
  if (typeof value === 'boolean') return 'Boolean';
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) <= 2147483647 ? 'Int32' : 'Double';
  return 'String';
}

function readKeyed<T>(
  value: unknown,
  kind: string,
  errors: FieldErrors,
  from: (id: string, v: unknown, path: string, errors: FieldErrors) => T | undefined,
): T[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => {
      if (!isPlainObject(item) || typeof item.identifier !== 'string' || item.identifier === '') {
        errors[`${kind}[${i}]`] = 'must be an object with an identifier';
        return [];
      }
      const out = from(item.identifier, item, `${kind}.${item.identifier}`, errors);
      return out === undefined ? [] : [out];
    });
  }
  if (!isPlainObject(value)) {
    errors[kind] = `must be an object {identifier: ...} or a list, got ${describeType(value)}`;
    return [];
  }
  return Object.entries(value).flatMap(([id, v]) => {
    const out = from(id, v, `${kind}.${id}`, errors);
    return out === undefined ? [] : [out];
  });
}

function nicknameFrom(identifier: string, raw: unknown, path: string, errors: FieldErrors): NickNameInput | undefined {
  if (typeof raw === 'string') return { identifier, files: [raw] };
  if (Array.isArray(raw) && raw.every((f) => typeof f === 'string')) return { identifier, files: raw as string[] };
  if (!isPlainObject(raw)) {
    errors[path] =
      `must be a file URI, a list of files or {files, data, datafilename, binary_mode}, got ${describeType(raw)}`;
    return undefined;
  }
  return { ...(raw as Partial<NickNameInput>), identifier } as NickNameInput;
}

function attachmentFrom(
  identifier: string,
  raw: unknown,
  path: string,
  errors: FieldErrors,
): AttachmentInput | undefined {
  if (typeof raw === 'string') return { identifier, file: raw };
  if (!isPlainObject(raw)) {
    errors[path] = `must be a file URI or {file}, got ${describeType(raw)}`;
    return undefined;
  }
  return { ...(raw as Partial<AttachmentInput>), identifier } as AttachmentInput;
}

function labelFrom(
  identifier: string,
  raw: unknown,
  path: string,
  errors: FieldErrors,
  declared?: WorkflowInputs,
): LabelInput | undefined {
  if (!isPlainObject(raw)) {
    errors[path] = `must be an object {Parameter: value} or {parameters: [...]}, got ${describeType(raw)}`;
    return undefined;
  }
  const declaredParams = declared?.labels?.find((l) => l.identifier === identifier)?.parameters ?? [];
  if ('parameters' in raw || 'identifier' in raw) {
    const { parameters, ...rest } = raw;
    const label = { ...(rest as Partial<LabelInput>), identifier } as LabelInput;
    if (parameters !== undefined) {
      if (!Array.isArray(parameters)) {
        errors[`${path}.parameters`] = `must be a list, got ${describeType(parameters)}`;
        return undefined;
      }
      label.parameters = parameters.map((p, i) => {
        if (!isPlainObject(p)) return p;
        const out: Record<string, unknown> = { ...p, value: toWireValue(p.value) ?? p.value };
        if (out.value === undefined) delete out.value;
        if (out.typecode === undefined || out.typecode === null) {
          const d = typeof p.name === 'string' ? declaredParams.find((dp) => dp.name === p.name) : undefined;
          if (d && isTypecode(d.typecode)) out.typecode = d.typecode;
          else {
            const name = typeof p.name === 'string' && p.name !== '' ? p.name : `[${i}]`;
            errors[`${path}.parameters.${name}`] =
              "typecode is required: the description requires it on every parameter (give typecode, or let the client read the workflow's declared inputs)";
          }
        }
        return out;
      }) as ParameterInput[];
    }
    return label;
  }
  const parameters: ParameterInput[] = [];
  for (const [name, v] of Object.entries(raw)) {
    const d = declaredParams.find((p) => p.name === name);
    const given = isPlainObject(v) ? v : { value: v };
    const value = toWireValue(given.value);
    const ppath = `${path}.parameters.${name}`;
    if (given.value !== undefined && given.value !== null && value === undefined) {
      errors[ppath] = `value must be a string, number or boolean, got ${describeType(given.value)}`;
      continue;
    }
    const typecode = resolveTypecode(given.typecode ?? d?.typecode, given.value, ppath, errors);
    if (!typecode) continue;
    const param: ParameterInput = { ...(given as Partial<ParameterInput>), name, typecode } as ParameterInput;
    if (value === undefined) delete param.value;
    else param.value = value;
    for (const key of ['minimum_value', 'maximum_value', 'increment_value'] as const) {
      const constraint = d?.[key];
      if (param[key] === undefined && typeof constraint === 'string') param[key] = constraint;
    }
    if (param.options === undefined && d?.options) param.options = d.options;
    parameters.push(param);
  }
  return { identifier, parameters };
}

export function checkValues(inputs: Inputs, errors: FieldErrors): void {
  for (const v of inputs.variables) {
    const path = `variables.${v.name}`;
    if (v.value !== undefined && typeof v.value === 'string' && !(path in errors)) {
      const rule = checkTypecode(v.typecode, v.value);
      if (rule) errors[path] = `${JSON.stringify(v.value)} ${rule}`;
    }
  }
  for (const label of inputs.labels) {
    for (const p of label.parameters ?? []) {
      if (!isPlainObject(p) || typeof p.value !== 'string' || typeof p.typecode !== 'string') continue;
      const path = `labels.${label.identifier}.parameters.${p.name}`;
      if (path in errors) continue;
      const rule = checkParameter(p, p.value);
      if (rule) errors[path] = `${JSON.stringify(p.value)} ${rule}`;
    }
  }
}

/**
 * With the workflow's declared inputs known, what the service's 422 would name is named before
 * sending: the description says variables, media nicknames, attachments and labels "must be
 * provided at submission". As in the simulator, a variable or parameter with a declared
 * default may be left out.
 */
/** Shared, never added to: the given names of a kind the workflow declares none of. */
const NONE: ReadonlySet<string> = new Set();

export function checkRequired(inputs: Inputs, declared: WorkflowInputs, errors: FieldErrors): void {
  const missing = (key: string, why: string) => {
    if (!(key in errors)) errors[key] = why;
  };
  // each kind only when the workflow declares some: a Set per kind and message otherwise
  const variables = declared.variables?.length ? new Set(inputs.variables.map((v) => v.name)) : NONE;
  for (const v of declared.variables ?? []) {
    if (!variables.has(v.name) && (v.default === undefined || v.default === null)) {
      missing(`variables.${v.name}`, `is required (${v.typecode}) and has no default`);
    }
  }
  const nicknames = declared.media_nicknames?.length ? new Set(inputs.media_nicknames.map((n) => n.identifier)) : NONE;
  for (const n of declared.media_nicknames ?? []) {
    if (n.identifier && !nicknames.has(n.identifier)) {
      missing(`media_nicknames.${n.identifier}`, 'is required: supply it with files or data');
    }
  }
  const attachments = declared.attachments?.length ? new Set(inputs.attachments.map((a) => a.identifier)) : NONE;
  for (const a of declared.attachments ?? []) {
    if (a.identifier && !attachments.has(a.identifier)) {
      missing(`attachments.${a.identifier}`, 'is required: supply it with a file');
    }
  }
  const labels = new Map(declared.labels?.length ? inputs.labels.map((l) => [l.identifier, l]) : []);
  for (const l of declared.labels ?? []) {
    if (!l.identifier) continue;
    const given = labels.get(l.identifier);
    if (!given) {
      missing(`labels.${l.identifier}`, 'is required: supply the label with its parameters');
      continue;
    }
    const names = new Set((given.parameters ?? []).map((p) => (isPlainObject(p) ? p.name : undefined)));
    for (const p of l.parameters ?? []) {
      if (!names.has(p.name) && (p.default_value === undefined || p.default_value === null)) {
        missing(`labels.${l.identifier}.parameters.${p.name}`, `is required (${p.typecode}) and has no default`);
      }
    }
  }
}

export function mergeBy<T>(base: T[], top: T[], key: (item: T) => string): T[] {
  // nothing to merge (the usual submission: no inputs in the node, one kind in the message): no Map
  if (base.length === 0 && top.length <= 1) return top;
  if (top.length === 0 && base.length <= 1) return base;
  const map = new Map<string, T>();
  for (const item of base) map.set(key(item), item);
  for (const item of top) map.set(key(item), item);
  return [...map.values()];
}

/** Node's Buffer where there is one: this module also runs in the browser editor. */
const NodeBuffer = (globalThis as { Buffer?: { isBuffer(value: unknown): boolean } }).Buffer;

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (NodeBuffer?.isBuffer(value)) return 'a Buffer';
  if (ArrayBuffer.isView(value)) return 'a typed array';
  if (value instanceof Date) return 'a Date';
  if (typeof value === 'string') return value.length > 40 ? `the text "${value.slice(0, 40)}…"` : `the text "${value}"`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/**
 * The inputs of one submission (short or full form) as read by the node, and
 * the fields that break a rule (typecode, declared options, shape), by path.
 */
export function readSubmitInput(value: unknown, declared?: WorkflowInputs): { inputs: Inputs; errors: FieldErrors } {
  const errors: FieldErrors = Object.create(null);
  const inputs = readInputs(value, 'payload', errors, declared);
  checkValues(inputs, errors);
  return { inputs, errors };
}
