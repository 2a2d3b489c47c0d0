import { type DialogDefaults, type FieldNode, fieldDefaults } from '../shared/editor/field-defaults';
import { FIELDS, FINISHED_OUTCOMES } from './fields';

const field = fieldDefaults(FIELDS);

RED.nodes.registerType<FieldNode<typeof FIELDS>>('media-spaces-as-run', {
  category: 'media spaces',
  color: '#8FBCE6',
  defaults: {
    name: { value: '' },
    // every field of the table (written out key by key into the bundle by scripts/build-editor.mjs)
    ...field,
  } satisfies DialogDefaults<typeof FIELDS>,
  inputs: 0,
  outputs: 1,
  icon: 'media-spaces-as-run.svg',
  paletteLabel: 'as-run',
  label() {
    if (this.name) return this.name;
    const kept = FINISHED_OUTCOMES.filter((o) => this[o] !== false);
    return kept.length === FINISHED_OUTCOMES.length ? 'as-run' : `as-run: ${kept.join(', ') || 'nothing'}`;
  },
  labelStyle() {
    return this.name ? 'node_label_italic' : '';
  },
  outputLabels() {
    return this._('media-spaces-as-run.outputs.1');
  },
  oneditprepare() {
    // a node written without an outcome (by hand, or imported) sends it, as the runtime reads it: ticked
    for (const o of FINISHED_OUTCOMES) {
      const stored: unknown = this[o];
      $(`#node-input-${o}`).prop('checked', stored !== false && stored !== 'false');
    }
    fillSchedules($('#node-input-schedule'), String(this.schedule ?? ''), this._('media-spaces-as-run.schedule.gone'));
  },
});

/**
 * The schedule nodes of the workspace by name (set as text: names are the
 * user's), their id as the value; a stored schedule no longer there (or a
 * name written in the flow's JSON) stays chosen under its own value.
 */
function fillSchedules(select: JQuery, chosen: string, gone: string): void {
  const found: { id: string; label: string }[] = [];
  RED.nodes.eachNode((node) => {
    if (node.type === 'media-spaces-schedule') found.push({ id: node.id, label: node.name || node.id });
    return true;
  });
  found.sort((a, b) => a.label.localeCompare(b.label));
  for (const s of found) select.append($('<option>').val(s.id).text(s.label));
  if (chosen !== '' && !found.some((s) => s.id === chosen || s.label === chosen)) {
    select.append($('<option>').val(chosen).text(`${chosen} ${gone}`));
  }
  const byName = found.find((s) => s.label === chosen && s.id !== chosen);
  select.val(byName && !found.some((s) => s.id === chosen) ? byName.id : chosen);
}
