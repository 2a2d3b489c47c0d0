import type { z } from 'zod';
import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import { describeType } from '../../lib/submit-input-read';
import type { Node, NodeAPI, NodeMessage } from './node-red-types';
import { evaluateSetting } from './typed-input';

/**
 * Which message property overrides which node setting, declared once per node
 * as data (after the InputService of the Home Assistant nodes) and read by one
 * resolver: the message property if given (not undefined), else the setting,
 * a typed input evaluated for the message where `typeField` says so. Each
 * value is checked by its schema, and a failure names where the value came
 * from (`msg.max_results`, or the setting as its dialog labels it, `Page size`).
 */
export interface InputSpec<S extends z.ZodType = z.ZodType> {
  /** The msg property that overrides the setting; omitted where only the setting gives it. */
  message?: string;
  /** The property of an object msg.payload that gives the input first (a control message's request form). */
  payload?: string;
  /** The setting's key in the node's parsed settings; omitted where only the message gives it. */
  setting?: string;
  /** The setting holding the typed-input type of `setting` (str, msg, flow, global, env, json). */
  typeField?: string;
  /** The type assumed when `typeField` is empty. */
  defaultType?: string;
  /** What the value is called in the field map of errors (defaults to `message`, then `setting`). */
  name?: string;
  /** How the text of an error about the setting names it: as its dialog labels it (setting-name.ts). */
  label?: string;
  /** Checks and converts the value; its message completes "<where> ...". */
  schema: S;
}

export type InputMap = Record<string, InputSpec>;
type ResolvedInputs<M extends InputMap> = { [K in keyof M]: z.infer<M[K]['schema']> };

/**
 * resolveInputs for a map without typed inputs: nothing waits for a context
 * store, so the inputs come back at once and a message is taken in the order
 * it came (the polling nodes, the schedule's commands).
 */
export function resolveMessageInputs<M extends InputMap>(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessage,
  settings: Record<string, unknown>,
  map: M,
): ResolvedInputs<M> {
  const inputs = resolveInputs(RED, node, msg, settings, map);
  if (inputs instanceof Promise) {
    inputs.catch(() => undefined);
    throw new TypeError('an input resolved at once must not need an evaluation (a typed input)');
  }
  return inputs;
}

/** A value left empty counts as not given: undefined, null (from a setting) or blank text. */
const blank = (value: unknown) => value === undefined || value === null || value === '';

/**
 * Synchronous unless a setting has to be evaluated (msg, flow, global, env, json): most
 * messages of a node with plain settings resolve without a promise, which a node taking
 * thousands of messages a second pays for on every one.
 */
export function resolveInputs<M extends InputMap>(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessage,
  settings: Record<string, unknown>,
  map: M,
): ResolvedInputs<M> | Promise<ResolvedInputs<M>> {
  const out: Record<string, unknown> = {};
  const keys = Object.keys(map);
  for (let i = 0; i < keys.length; i++) {
    if (!resolveNow(msg, settings, map[keys[i]], keys[i], out)) {
      return resolveRest(RED, node, msg, settings, map, keys, i, out);
    }
  }
  return out as ResolvedInputs<M>;
}

/** The inputs from `from` on, once one of them needs an evaluation that may wait for a context store. */
async function resolveRest<M extends InputMap>(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessage,
  settings: Record<string, unknown>,
  map: M,
  keys: string[],
  from: number,
  out: Record<string, unknown>,
): Promise<ResolvedInputs<M>> {
  for (let i = from; i < keys.length; i++) {
    const key = keys[i];
    const spec = map[key];
    // the input at `from` is the one the caller found needs an evaluation
    if (i > from && resolveNow(msg, settings, spec, key, out)) continue;
    const name = nameOf(spec, key);
    const value = await evaluateSetting(RED, node, msg, {
      name,
      label: spec.label,
      value: settings[spec.setting as string],
      type: settingType(settings, spec),
    });
    out[key] = checked(spec, key, undefined, value);
    rememberConstant(settings, spec, key, out[key]);
  }
  return out as ResolvedInputs<M>;
}

/**
 * Puts one input into `out` when it needs no evaluation: the message property, a
 * value checked once per deploy, or a plain setting. False when its setting is read
 * by Node-RED (msg, flow, global, env, json), which the caller then awaits.
 */
function resolveNow(
  msg: NodeMessage,
  settings: Record<string, unknown>,
  spec: InputSpec,
  key: string,
  out: Record<string, unknown>,
): boolean {
  const source = messageSource(msg, spec);
  const fromMessage = source !== undefined;
  if (!fromMessage) {
    const constant = constantOf(settings, key);
    if (constant !== NOT_CONSTANT) {
      out[key] = constant;
      return true;
    }
    if (spec.setting !== undefined && settingType(settings, spec) !== 'str' && !blank(settings[spec.setting])) {
      return false;
    }
  }
  const value = source ? source.value : spec.setting === undefined ? undefined : settings[spec.setting];
  out[key] = checked(spec, key, source?.where, value);
  if (!fromMessage) rememberConstant(settings, spec, key, out[key]);
  return true;
}

const nameOf = (spec: InputSpec, key: string) => spec.name ?? spec.message ?? spec.setting ?? key;

/**
 * Where the message gives the input: msg.payload.<payload> when the payload is
 * an object holding it (a control message's request form), else msg.<message>.
 */
function messageSource(msg: NodeMessage, spec: InputSpec): { value: unknown; where: string } | undefined {
  const payload = msg.payload;
  if (spec.payload !== undefined && isPlainObject(payload) && payload[spec.payload] !== undefined) {
    return { value: payload[spec.payload], where: `msg.payload.${spec.payload}` };
  }
  if (spec.message !== undefined && msg[spec.message] !== undefined) {
    return { value: msg[spec.message], where: `msg.${spec.message}` };
  }
  return undefined;
}

/** The value checked by its schema; a failure names where the value came from (the message, else the setting). */
function checked(spec: InputSpec, key: string, fromMessage: string | undefined, value: unknown): unknown {
  const result = spec.schema.safeParse(value);
  if (result.success) return result.data;
  const name = nameOf(spec, key);
  const where = fromMessage ?? spec.label ?? `${name} (node setting)`;
  const rule = result.error.issues[0]?.message ?? 'is not valid';
  // the text says where the value came from; the field map names the field, as the library does
  throw MediaSpacesError.invalidInput(`${where} ${rule}, got ${describeType(value)}`, { [name]: rule });
}

/**
 * A setting that is plain text (or empty) gives the same checked value for
 * every message: it is checked once per deploy, not once per message (the
 * settings object is the node's own, parsed on deploy), which took a zod
 * parse per input off each message. So does an input only a message gives,
 * for the messages that leave it out. Values from other input
 * types (msg, flow, env, json, ...) are evaluated per message as before.
 */
const NOT_CONSTANT = Symbol('not constant');
const constants = new WeakMap<object, Map<string, unknown>>();

function isConstantSetting(settings: Record<string, unknown>, spec: InputSpec): boolean {
  // an input only a message gives is the same (not given) for every message without it
  if (spec.setting === undefined) return true;
  const value = settings[spec.setting];
  return blank(value) || (settingType(settings, spec) === 'str' && typeof value === 'string');
}

function constantOf(settings: Record<string, unknown>, key: string): unknown {
  const known = constants.get(settings);
  return known?.has(key) ? known.get(key) : NOT_CONSTANT;
}

function rememberConstant(settings: Record<string, unknown>, spec: InputSpec, key: string, value: unknown): void {
  if (!isConstantSetting(settings, spec) || (typeof value === 'object' && value !== null)) return;
  let known = constants.get(settings);
  if (!known) {
    known = new Map();
    constants.set(settings, known);
  }
  known.set(key, value);
}

/** The typed-input type of the setting behind `spec` (str, msg, flow, global, env, json). */
function settingType(settings: Record<string, unknown>, spec: InputSpec): string {
  const typeSetting = spec.typeField === undefined ? undefined : settings[spec.typeField];
  return typeof typeSetting === 'string' && typeSetting !== '' ? typeSetting : (spec.defaultType ?? 'str');
}

/**
 * msg.payload read as a request for the node (the inject rule): a plain object is a request,
 * merged over the node's settings; null, undefined, a number, a boolean, a timestamp or text
 * only triggers the node, which then sends what its settings hold, so Node-RED's default inject
 * works as it is. Two forms are refused because they are mistakes, never triggers: a list, and
 * text that is JSON of an object (it wants a JSON node first).
 */
export function requestPayload(payload: unknown, rule: string): Record<string, unknown> | undefined {
  if (isPlainObject(payload)) return payload;
  if (Array.isArray(payload) || (typeof payload === 'string' && /^\s*\{/.test(payload))) {
    const hint = typeof payload === 'string' ? ' (parse JSON text with a JSON node first)' : '';
    throw MediaSpacesError.invalidInput(`msg.payload ${rule}${hint}, got ${describeType(payload)}`, {
      'msg.payload': rule,
    });
  }
  return undefined;
}
