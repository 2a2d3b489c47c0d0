import { adminErrorMessage, postAdmin } from '../../shared/editor/admin';

interface TestReport {
  results?: Array<{ area: string; ok: boolean | null; message: string }>;
}

const value = (field: string) => $(`#node-config-input-${field}`).val();

/** "Test connection": the dialog's unsaved settings tried against the service by the runtime. */
export function testConnection(node: EditorNodeInstance, $button: JQuery): void {
  const $out = $('#node-config-media-spaces-test-result').empty();
  $button.prop('disabled', true);
  $('<div>').text(node._('media-spaces-config.test.running')).appendTo($out);
  const body = {
    id: node.id,
    name: value('name'),
    workflowUrl: value('workflowUrl'),
    liveCaptureUrl: value('liveCaptureUrl'),
    spaceId: value('spaceId'),
    workflowPrefix: value('workflowPrefix'),
    timeout: value('timeout'),
    retries: value('retries'),
    rejectUnauthorized: $('#node-config-input-rejectUnauthorized').is(':checked'),
    // '__PWRD__' (unchanged stored password) makes the runtime use the stored credential
    apiKey: value('apiKey'),
    accessToken: value('accessToken'),
    workflowToken: value('workflowToken'),
    workflowTokenExpiresAt: value('workflowTokenExpiresAt'),
  };
  postAdmin<TestReport>('test-connection', body)
    .done((report) => {
      $out.empty();
      for (const r of report.results ?? []) {
        const mark = r.ok === true ? '✔' : r.ok === false ? '✖' : '–';
        const colour = r.ok === true ? '#3a7d34' : r.ok === false ? '#b2372b' : '#777';
        const $row = $('<div>').css({ margin: '4px 0' }).appendTo($out);
        $('<span>').css({ color: colour, 'font-weight': 'bold', 'margin-right': '6px' }).text(mark).appendTo($row);
        $('<b>')
          .text(`${node._(`media-spaces-config.test.area.${r.area}`)}: `)
          .appendTo($row);
        $('<span>').text(r.message).appendTo($row);
      }
      showResults($out);
    })
    .fail((xhr) => {
      $out.empty();
      $('<div>')
        .css({ color: '#b2372b' })
        .text(adminErrorMessage(xhr) ?? node._('media-spaces-config.test.failed', { status: xhr.status }))
        .appendTo($out);
      showResults($out);
    })
    .always(() => {
      $button.prop('disabled', false);
    });
}

/** The results sit under the dialog's last fields: brought into view, or the click seems to do nothing. */
function showResults($out: JQuery): void {
  $out[0]?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
}
