import {
  defaultType,
  type Field,
  type FieldTable,
  isBlank,
  type SettingKey,
  type TypedInputType,
  type TypeKey,
} from '../fields';
import { settingName, settingProblem, translatorLookup } from '../setting-name';

/**
 * The editor's `defaults` entries of a node's fields, from the same table the
 * runtime reads its settings with: the default value, the config node type,
 * `required`, and a validator returning the field's rule in words (shown by
 * Node-RED beside the red field). A typed input gets its `<key>Type` entry too.
 */
type FieldDefaults<F extends FieldTable> = Record<SettingKey<F> | TypeKey<F>, EditorNodeProperty>;

/**
 * What every dialog's `defaults` holds: `name` and one entry per field. Used
 * with `satisfies` on the inline object (the Flow Library's checker reads the
 * keys from the source), so a field missing from the dialog does not compile.
 */
export type DialogDefaults<F extends FieldTable> = Record<'name' | SettingKey<F> | TypeKey<F>, EditorNodeProperty>;

/** The node as the dialog holds it: each field as the dialog stores it. */
export type FieldNode<F extends FieldTable> = EditorNodeInstance & {
  [K in SettingKey<F>]: F[K]['value'] extends boolean
    ? boolean
    : F[K]['value'] extends readonly unknown[]
      ? unknown[]
      : string;
} & { [K in TypeKey<F>]: TypedInputType | '' };

/**
 * A setting a msg property overrides may be left blank: messages give it (the
 * runtime names the msg property when neither does), as the workflow id of a
 * submit job fed by msg.workflow_id.
 */
const givenByMessage = (field: Field, value: unknown) => field.message !== undefined && isBlank(value);

/** The rule a value breaks, in the sentence the runtime uses too ("Interval must be a whole number …"). */
function broken(node: EditorNodeInstance | undefined, key: string, field: Field, rule: string): string {
  const lookup = translatorLookup(node?._?.bind(node), String(node?.type));
  return settingProblem(settingName(lookup, key, field), rule);
}

function validator(key: string, field: Field): EditorNodeProperty['validate'] {
  if (field.types) {
    const typed = RED.validators.typedInput(`${key}Type`);
    const fallbackType = defaultType(field);
    return function (this: EditorNodeInstance, value, opt) {
      const valid = typed.call(this, value, opt);
      if (valid !== true) return valid;
      // the type chosen in the open dialog first, as Node-RED's own typedInput validator reads it
      const open = $(`#node-input-${key}Type`).val();
      const type = (typeof open === 'string' && open) || this[`${key}Type`] || fallbackType;
      if (type !== 'str' || givenByMessage(field, value)) return true;
      const read = field.rule.read(value);
      return read.ok || broken(this, key, field, read.rule);
    };
  }
  if (field.node) return undefined;
  // two parameters: Node-RED takes a validator's text as the reason only from one declaring (value, opt)
  return function (this: EditorNodeInstance, value, _opt) {
    // a flow saved before the field existed lacks it; the runtime reads it as the default
    if (value === undefined || givenByMessage(field, value)) return true;
    const read = field.rule.read(value);
    return read.ok || broken(this, key, field, read.rule);
  };
}

export function fieldDefaults<F extends FieldTable>(fields: F): FieldDefaults<F> {
  const defaults: Record<string, EditorNodeProperty> = {};
  for (const [key, field] of Object.entries(fields)) {
    if (field.value === undefined) continue;
    const property: EditorNodeProperty = { value: field.value };
    if (field.node) property.type = field.node;
    if (field.required !== undefined) property.required = field.required;
    const validate = validator(key, field);
    if (validate) property.validate = validate;
    defaults[key] = property;
    if (field.types) defaults[`${key}Type`] = { value: defaultType(field) };
  }
  return defaults as FieldDefaults<F>;
}
