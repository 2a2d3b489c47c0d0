import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { type Finding, findHtmlSinks, inlineScripts } from '../support/html-sinks';
import { ROOT } from '../support/node-modules';

/**
 * The editor code never hands text it did not write to something that parses
 * HTML (test/support/html-sinks.ts says what counts). Checked on the sources
 * with the editor's own TypeScript program (tsconfig.editor.json: every
 * editor.ts and editor/ folder under nodes/), so a string built from a name
 * is told apart from an element or a literal; and on the inline scripts of
 * the nodes' HTML templates. A probe file with known good and bad lines
 * shows the check finds what it should, and only that.
 */

const PROBE = join(ROOT, 'nodes/shared/editor/html-sinks-probe.ts');
const PROBE_TEXT = `
export {};
declare const userText: string;
declare const el: HTMLElement;
declare const $box: JQuery;
const FIXED = '<b>fixed</b>';
const QUESTION = (n: string) => \`Pause "\${n}"?\`;
RED.notify(\`Pause "\${userText}"?\`); // bad
RED.notify('Deployed'); // ok
RED.notify('Could not pause ' + userText, 'error'); // bad
RED.notify(userText); // bad
RED.notify(QUESTION(userText)); // bad
RED.notify($('<p>').text(userText)); // ok
RED.notify(FIXED); // ok
$box.html(userText); // bad
$box.html('<i class="fa fa-check"></i>'); // ok
$box.html(); // ok
el.innerHTML = userText; // bad
el.innerHTML += \`<b>\${userText}</b>\`; // bad
el.innerHTML = ''; // ok
el.outerHTML = FIXED; // ok
el.insertAdjacentHTML('beforeend', userText); // bad
el.insertAdjacentHTML('beforeend', '<hr>'); // ok
$(\`<div>\${userText}</div>\`); // bad
$('<div title="' + userText + '">'); // bad
$(userText); // bad
$(\`#node-input-\${userText}\`); // ok
$('#node-input-' + userText); // ok
$('<div>').text(userText); // ok
$(el); // ok
$box.append(\`<li>\${userText}</li>\`); // bad
$box.append($('<li>').text(userText)); // ok
$box.after('<hr>' + userText); // bad
el.append(userText); // ok
document.write(userText); // bad
`;

const JS_PROBE = `<script type="text/html" data-template-name="x"><div>\${name}</div></script>
<script type="text/javascript">
  var name = RED.nodes.node('x').name;
  RED.notify('Could not ' + name); // bad
  RED.notify('Saved'); // ok
  RED.notify(name); // bad
  $('#box').html(name); // bad
  $('#box').html('<b>fixed</b>'); // ok
  $('<li>' + name + '</li>').appendTo('#list'); // bad
  $('<li>').text(name).appendTo('#list'); // ok
  $('#node-config-input-' + name).val(); // ok
  $(this).find('.x'); // ok
  $('#list').append('<li>' + name + '</li>'); // bad
  document.getElementById('x').innerHTML = name; // bad
</script>`;

function editorProgram(): ts.Program {
  const configPath = join(ROOT, 'tsconfig.editor.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT, undefined, configPath);
  const host = ts.createCompilerHost(parsed.options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (file, version, ...rest) =>
    file === PROBE
      ? ts.createSourceFile(file, PROBE_TEXT, version, true)
      : getSourceFile.call(host, file, version, ...rest);
  host.fileExists = (file) => file === PROBE || fileExists.call(host, file);
  host.readFile = (file) => (file === PROBE ? PROBE_TEXT : readFile.call(host, file));
  return ts.createProgram({ rootNames: [...parsed.fileNames, PROBE], options: parsed.options, host });
}

function htmlTemplates(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'locales' ? [] : htmlTemplates(path);
    return path.endsWith('.html') ? [path] : [];
  });
}

function scriptFindings(file: string, html: string): Finding[] {
  return inlineScripts(html).flatMap(({ code, line }) =>
    findHtmlSinks({ file, source: ts.createSourceFile(file, code, ts.ScriptTarget.ES2020, true), lineOffset: line }),
  );
}

/** The lines of a probe marked `// bad`, 1-based. */
const badLines = (text: string) =>
  text.split('\n').flatMap((line, i) => (line.trimEnd().endsWith('// bad') ? [i + 1] : []));

const program = editorProgram();
const checker = program.getTypeChecker();
const editorSources = program
  .getSourceFiles()
  .filter((s) => !s.isDeclarationFile && s.fileName.startsWith(join(ROOT, 'nodes')) && s.fileName !== PROBE);
const typedFindings = (source: ts.SourceFile) =>
  findHtmlSinks({ file: relative(ROOT, source.fileName), source, checker });

describe('editor code: no HTML built from text it did not write', () => {
  it('the check finds every bad line of the TypeScript probe, and nothing else', () => {
    const probe = program.getSourceFile(PROBE);
    if (!probe) throw new Error('the probe is not in the program');
    const lines = typedFindings(probe).map((f) => f.line);
    expect(lines).toEqual(badLines(PROBE_TEXT));
  });

  it('the check finds every bad line of an inline script, and nothing else', () => {
    expect(scriptFindings('probe.html', JS_PROBE).map((f) => f.line)).toEqual(badLines(JS_PROBE));
  });

  it('reads every editor source (the sidebar tab, the dialogs, the shared helpers)', () => {
    const names = editorSources.map((s) => relative(ROOT, s.fileName));
    expect(names).toEqual(
      expect.arrayContaining([
        'nodes/sidebar/editor/confirm.ts',
        'nodes/sidebar/editor/timeline.ts',
        'nodes/shared/editor/workflow-picker.ts',
        'nodes/config/editor/test-connection.ts',
        'nodes/shared/editor/inputs-form.ts',
        'nodes/schedule/editor/window-list.ts',
      ]),
    );
    expect(names.length).toBeGreaterThan(35);
  });

  it('no editor source passes built text to an HTML sink', () => {
    expect(editorSources.flatMap(typedFindings)).toEqual([]);
  });

  it('no inline script of a node template passes built text to an HTML sink', () => {
    const templates = htmlTemplates(join(ROOT, 'nodes'));
    expect(templates.length).toBeGreaterThan(9);
    const withScripts = templates.filter((path) => inlineScripts(readFileSync(path, 'utf8')).length > 0);
    // every dialog's code is typed editor code now (the coordination dialog was the last inline script),
    // so all of it goes through the typed check above; a template that gains an inline script is checked here
    expect(withScripts.map((p) => relative(ROOT, p))).toEqual([]);
    expect(withScripts.flatMap((path) => scriptFindings(relative(ROOT, path), readFileSync(path, 'utf8')))).toEqual([]);
  });
});
