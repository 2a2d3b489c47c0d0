/**
 * A field's own error line: the field is marked (Node-RED's input-error) and
 * the reason shown right under it as it is typed, instead of only in the
 * preview further down the dialog.
 */
export function fieldError($field: JQuery, $line: JQuery, problem: string | undefined | null): void {
  $field.toggleClass('input-error', Boolean(problem));
  $line.text(problem ?? '').toggle(Boolean(problem));
}

/** The line that holds a field's error, placed after the given element. */
export function errorLine(cls: string): JQuery {
  return $('<div class="ms-field-error">')
    .addClass(cls)
    .css({ color: 'var(--red-ui-text-color-error, #c00)', 'font-size': '0.9em', 'margin-left': '105px' })
    .hide();
}

/** A muted note beside or under a field (e.g. which time zone wins). */
export function noteLine(cls: string, text: string): JQuery {
  return $('<div class="ms-field-note">')
    .addClass(cls)
    .css({ 'font-size': '0.85em', color: 'var(--red-ui-secondary-text-color, #888)', 'margin-left': '105px' })
    .text(text);
}

/** IANA zone names for completion (a datalist shared by every zone field of the dialog). */
export function zoneDatalist(id: string): void {
  if (document.getElementById(id)) return;
  const list = document.createElement('datalist');
  list.id = id;
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  for (const zone of zones.includes('UTC') ? zones : ['UTC', ...zones]) {
    const option = document.createElement('option');
    option.value = zone;
    list.appendChild(option);
  }
  document.getElementById('dialog-form')?.appendChild(list);
}
