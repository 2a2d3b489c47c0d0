import { isLoopback } from '../../lib/rules';
import { type DialogDefaults, type FieldNode, fieldDefaults } from '../shared/editor/field-defaults';
import { FIELDS } from './fields';

const field = fieldDefaults(FIELDS);

/** The host of a plain `redis://` url as typed, even before the url is complete; undefined for `rediss://`. */
function plainHost(url: string): string | undefined {
  return /^redis:\/\/([^:/]+|\[[^\]]+\])/i.exec(url.trim())?.[1];
}

/**
 * A node's coordination select reads as chosen what is chosen: Node-RED shows a select with no
 * config node of the type as "Add new Redis coordination…", selected, though an empty value means
 * this instance alone. Its empty choice (`_ADD_`, saved as "", as Node-RED's own "none") is named
 * so, whenever Node-RED (re)builds the select; the + button beside it still adds one.
 */
function nameTheEmptyChoice(): void {
  $('body').on('change', 'select#node-input-coordination', (event) => {
    // the type's own message catalogue (RED._ alone would look in Node-RED's)
    const none = RED.nodes.getType('media-spaces-coordination')?._?.('media-spaces-coordination.none');
    if (none)
      $(event.currentTarget as HTMLSelectElement)
        .find('option[value="_ADD_"]')
        .text(none);
  });
}
nameTheEmptyChoice();

RED.nodes.registerType<FieldNode<typeof FIELDS>>('media-spaces-coordination', {
  category: 'config',
  // "Add new Redis coordination config node", and the Help tree's entry, instead of the type name
  paletteLabel() {
    return this._('media-spaces-coordination.paletteLabel');
  },
  defaults: {
    name: { value: '' },
    // every field of the table (written out key by key into the bundle by scripts/build-editor.mjs)
    ...field,
  } satisfies DialogDefaults<typeof FIELDS>,
  credentials: {
    username: { type: 'password' },
    password: { type: 'password' },
  },
  label() {
    return this.name || this.url || 'redis coordination';
  },
  oneditprepare() {
    // a password and every claim would cross the network unencrypted
    const showPlain = () => {
      const host = plainHost(String($('#node-config-input-url').val() ?? ''));
      const $box = $('#node-config-media-spaces-coordination-plain').empty();
      if (host === undefined || isLoopback(host)) {
        $box.hide();
        return;
      }
      $('<i class="fa fa-exclamation-triangle"></i>').appendTo($box);
      $('<span>')
        .text(` ${this._('media-spaces-coordination.warning.plainRedis', { host })}`)
        .appendTo($box);
      $box.show();
    };
    $('#node-config-input-url').on('input change', showPlain);
    showPlain();
  },
});
