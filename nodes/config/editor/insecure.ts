import { checkBaseUrl } from '../../../lib/rules';

/** The same rules as the runtime's warnings on deploy (lib/rules checkBaseUrl, via config-settings). */
function insecureWarnings(node: EditorNodeInstance): string[] {
  const warnings: string[] = [];
  for (const field of ['workflowUrl', 'liveCaptureUrl']) {
    const checked = checkBaseUrl(String($(`#node-config-input-${field}`).val() ?? ''));
    if (checked.ok && checked.insecure) {
      warnings.push(
        node._('media-spaces-config.warning.plainHttp', {
          field: node._(`media-spaces-config.label.${field}`),
          host: checked.url.hostname,
        }),
      );
    }
  }
  if (!$('#node-config-input-rejectUnauthorized').is(':checked')) {
    warnings.push(node._('media-spaces-config.warning.tlsOff'));
  }
  return warnings;
}

export function showInsecure(node: EditorNodeInstance): void {
  const warnings = insecureWarnings(node);
  const $box = $('#node-config-media-spaces-insecure').empty();
  for (const text of warnings) {
    const $row = $('<div>').appendTo($box);
    $('<i class="fa fa-exclamation-triangle"></i>').appendTo($row);
    $('<span>').text(` ${text}`).appendTo($row);
  }
  $box.toggle(warnings.length > 0);
}
