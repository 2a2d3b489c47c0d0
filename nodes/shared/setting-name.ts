import type { Field } from './fields';

/**
 * How every error and warning about a node's setting names it, in the
 * runtime and in the dialog alike: by the label its edit dialog shows
 * ("Interval", "Workflow URL"), in one sentence shape, "<label> <rule>"
 * ("Interval must be a whole number of at least 1"). Browser-safe: the
 * dialog's validators use it with the editor's catalogue, the runtime with
 * its own (dialog-labels.ts).
 */

/** A label of the node's catalogue by its key (`<type>.label.<key>`); undefined where the catalogue lacks it. */
export type LabelLookup = (labelKey: string) => string | undefined;

/** The setting `key` as its dialog labels it (under the field's `label` key, else its own); its key where no catalogue is at hand. */
export function settingName(lookup: LabelLookup, key: string, field?: Field): string {
  return lookup(field?.label ?? key) ?? key;
}

/** The one sentence of a setting that breaks its rule (the rule completes "<label> …"). */
export function settingProblem(name: string, rule: string): string {
  return `${name} ${rule}`;
}

/**
 * What a node with a bad setting does until it is fixed, said with it once on
 * deploy (README, "A bad setting"): a node acting on messages refuses each,
 * a config node every use (so each message or slot of a node using it fails
 * with the reason); a node running on its own warns and uses the default.
 */
export const UNTIL_FIXED = {
  messages: 'each message is refused until it is fixed',
  uses: 'every node using it fails until it is fixed',
  defaulted: 'using the default',
} as const;

/**
 * Node-RED's translator (`RED._` in the runtime, a node's `this._` in the
 * dialog) as a lookup of the node's labels. It answers an unknown id with the
 * id itself (or its tail), which counts as no label.
 */
export function translatorLookup(translate: ((id: string) => unknown) | undefined, type: string): LabelLookup {
  return (labelKey) => {
    if (typeof translate !== 'function') return undefined;
    const id = `${type}.label.${labelKey}`;
    const text = translate(id);
    return typeof text === 'string' && text !== '' && !text.endsWith(id) ? text : undefined;
  };
}
