import { ID_PATTERN } from '../../lib/schedule/ids';
import { isValidTimeZone } from '../../lib/schedule/tz';
import { prepareDialog, resizeDialog, windowsToSave } from './editor/dialog';
import type { ScheduleEditorNode } from './editor/types';
import { isScheduleSource } from './sources';

const DEFAULT_YAML = `timezone: Europe/London
windows:
  - id: evening-news
    name: Evening news
    cron: "0 18 * * mon-fri"
    duration: 1h30m
    channel:
      tags: [news]
`;

RED.nodes.registerType<ScheduleEditorNode>('media-spaces-schedule', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    source: { value: 'yaml', validate: (v) => isScheduleSource(v) },
    yaml: { value: DEFAULT_YAML },
    file: {
      value: '',
      validate(v) {
        return this.source !== 'file' || (typeof v === 'string' && v.trim() !== '');
      },
    },
    windows: { value: [] },
    // the same rules as the runtime's: an id that goes into slot keys, an IANA zone
    scheduleId: { value: '', validate: (v) => !v || (typeof v === 'string' && ID_PATTERN.test(v)) },
    timezone: { value: '', validate: (v) => !v || isValidTimeZone(String(v).trim()) },
    catchUp: { value: true },
    server: { value: '', type: 'media-spaces-config', required: false },
    coordination: { value: '', type: 'media-spaces-coordination', required: false },
  },
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
    delete this._readWindows;
  },
  oneditcancel() {
    this.yamlEditor?.destroy();
    delete this.yamlEditor;
    delete this._readWindows;
  },
  oneditresize(size) {
    resizeDialog(this, size);
  },
});
