import { isValidTimeZone } from '../../lib/schedule/tz';
import { takeOnlyConfigNodes } from '../shared/editor/config-choice';
import { type DialogDefaults, fieldDefaults } from '../shared/editor/field-defaults';
import { prepareDialog, resizeDialog, windowsToSave } from './editor/dialog';
import { missingWorkflow } from './editor/followup-form';
import type { ScheduleEditorNode } from './editor/types';
import { FIELDS, isScheduleId, SCHEDULE_ID_RULE } from './fields';

const field = fieldDefaults(FIELDS);

/** The first window whose follow-up names no workflow, in words; undefined when there is none. */
function followupProblem(windows: unknown, translate: ((key: string) => string) | undefined): string | undefined {
  if (!Array.isArray(windows)) return undefined;
  const at = windows.findIndex((w) => typeof w === 'object' && w !== null && missingWorkflow(w.followup));
  if (at < 0) return undefined;
  const id = String(windows[at].id ?? at + 1);
  const words = translate?.('media-spaces-schedule.error.noWorkflow') ?? 'Choose the follow-up workflow';
  return `window ${id}: ${words}`;
}

function closeDialog(node: ScheduleEditorNode): void {
  node._closeDialog?.();
  delete node._closeDialog;
  delete node._readWindows;
  delete node._saveFeeds;
}

RED.nodes.registerType<ScheduleEditorNode>('media-spaces-schedule', {
  category: 'media spaces',
  // per window id: a private feed address, the feed's user and password or token (JSON; see feed-secrets.ts)
  credentials: { feeds: { type: 'password' } },
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    // every field of the table (written out key by key into the bundle by scripts/build-editor.mjs)
    ...field,
    file: {
      ...field.file,
      // the one check across fields: a file source needs a file
      validate(v, opt) {
        if (this.source === 'file' && (typeof v !== 'string' || v.trim() === '')) return false;
        return field.file.validate?.call(this, v, opt) ?? true;
      },
    },
    scheduleId: {
      ...field.scheduleId,
      // stricter than the runtime, which keeps the id an older flow has: an id that goes into slot keys
      validate: (v, _opt) => v === undefined || v === '' || isScheduleId(v) || SCHEDULE_ID_RULE,
    },
    // a follow-up without a workflow is refused at deploy; said here, before it
    windows: {
      ...field.windows,
      validate(v, opt) {
        const problem = this.source === 'editor' ? followupProblem(v, this._) : undefined;
        return problem ?? field.windows.validate?.call(this, v, opt) ?? true;
      },
    },
    // stricter than the runtime, which leaves the zone's name to the library (it refuses an unknown zone)
    timezone: {
      ...field.timezone,
      validate(v, opt) {
        const valid = field.timezone.validate?.call(this, v, opt) ?? true;
        return valid === true && typeof v === 'string' && v.trim() !== '' ? isValidTimeZone(v.trim()) : valid;
      },
    },
  } satisfies DialogDefaults<typeof FIELDS>,
  // a new node takes the only server there is
  onadd: takeOnlyConfigNodes(FIELDS),
  inputs: 1,
  outputs: 3,
  icon: 'media-spaces-schedule.svg',
  paletteLabel: 'schedule',
  label() {
    return this.name || 'schedule';
  },
  labelStyle() {
    return this.name ? 'node_label_italic' : '';
  },
  inputLabels() {
    return this._('media-spaces-schedule.inputs.0');
  },
  outputLabels(index) {
    return this._(`media-spaces-schedule.outputs.${index}`);
  },
  oneditprepare() {
    prepareDialog(this);
  },
  oneditsave() {
    this.yaml = this.yamlEditor?.getValue() ?? this.yaml;
    this.yamlEditor?.destroy();
    delete this.yamlEditor;
    this.windows = windowsToSave(this);
    // Node-RED reads the credential's input after this: the secrets typed go in whole, else it keeps the stored ones
    const privateAddresses = this._saveFeeds?.() ?? [];
    // an address made private after the YAML view showed it must not stay in the flow with the YAML text
    for (const address of privateAddresses.filter((a) => a.length >= 8))
      this.yaml = this.yaml.split(address).join('private');
    closeDialog(this);
  },
  oneditcancel() {
    this.yamlEditor?.destroy();
    delete this.yamlEditor;
    closeDialog(this);
  },
  oneditresize(size) {
    resizeDialog(this, size);
  },
});
