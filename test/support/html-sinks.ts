import ts from 'typescript';

/**
 * Where editor code hands text to something that parses HTML: jQuery's
 * .html() and its insertion methods given a string, $() given markup,
 * innerHTML/outerHTML, insertAdjacentHTML, document.write, and RED.notify
 * (which sets a string message as innerHTML). A finding is such a call whose
 * argument is not constant: with the type checker (the editor's TypeScript),
 * constant means a string literal type; in the inline scripts of the .html
 * templates (plain JavaScript, no types) it means a literal.
 */

export interface Finding {
  file: string;
  line: number;
  sink: string;
  code: string;
}

/** constant: literal text; text: a string built at run time; other: an element, a jQuery object, a function… */
type Kind = 'constant' | 'text' | 'other';

const INSERTIONS = new Set(['append', 'prepend', 'after', 'before', 'replaceWith', 'wrap', 'wrapAll', 'wrapInner']);
const HTML_PROPERTIES = new Set(['innerHTML', 'outerHTML']);

function isLiteral(e: ts.Expression): boolean {
  return ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e);
}

function kindOfType(type: ts.Type): Kind {
  if (type.isUnion()) {
    const kinds = type.types.map(kindOfType);
    if (kinds.includes('text')) return 'text';
    return kinds.every((k) => k === 'constant') ? 'constant' : 'other';
  }
  if (type.flags & ts.TypeFlags.StringLiteral) return 'constant';
  if (type.flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.Any | ts.TypeFlags.Unknown)) {
    return 'text';
  }
  return 'other';
}

/** Without types: literals are constant, templates and concatenations text, and what cannot be told is text too. */
function kindOfSyntax(e: ts.Expression): Kind {
  if (isLiteral(e)) return 'constant';
  if (ts.isParenthesizedExpression(e)) return kindOfSyntax(e.expression);
  const other =
    e.kind === ts.SyntaxKind.ThisKeyword ||
    ts.isFunctionExpression(e) ||
    ts.isArrowFunction(e) ||
    ts.isObjectLiteralExpression(e) ||
    ts.isArrayLiteralExpression(e) ||
    ts.isNumericLiteral(e);
  return other ? 'other' : 'text';
}

/** A string that jQuery takes for a selector, not markup: it starts with fixed text other than "<". */
function isSelector(e: ts.Expression): boolean {
  let first: ts.Expression = e;
  while (ts.isBinaryExpression(first) && first.operatorToken.kind === ts.SyntaxKind.PlusToken) first = first.left;
  const head = ts.isTemplateExpression(first) ? first.head.text : ts.isStringLiteral(first) ? first.text : '';
  const start = head.trimStart();
  return start !== '' && !start.startsWith('<');
}

function isJQuery(type: ts.Type): boolean {
  const name = (type.aliasSymbol ?? type.getSymbol())?.getName();
  return name === 'JQuery';
}

export interface SinkSource {
  /** the file as reported */
  file: string;
  source: ts.SourceFile;
  /** the line of the file where `source` starts (inline scripts), 0-based */
  lineOffset?: number;
  checker?: ts.TypeChecker;
}

export function findHtmlSinks({ file, source, lineOffset = 0, checker }: SinkSource): Finding[] {
  const found: Finding[] = [];
  const kind = (e: ts.Expression): Kind => {
    if (isLiteral(e)) return 'constant';
    return checker ? kindOfType(checker.getTypeAtLocation(e)) : kindOfSyntax(e);
  };
  const report = (node: ts.Node, sink: string) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 + lineOffset;
    found.push({ file, line, sink, code: node.getText(source).replace(/\s+/g, ' ').slice(0, 120) });
  };
  const receiverText = (callee: ts.PropertyAccessExpression) => callee.expression.getText(source);

  const visitCall = (call: ts.CallExpression) => {
    const [first, second] = call.arguments;
    const callee = call.expression;
    if (ts.isIdentifier(callee) && (callee.text === '$' || callee.text === 'jQuery')) {
      if (first && kind(first) === 'text' && !isSelector(first)) report(call, '$(markup)');
      return;
    }
    if (!ts.isPropertyAccessExpression(callee)) return;
    const method = callee.name.text;
    if (method === 'html' && first && kind(first) !== 'constant') report(call, '.html()');
    else if (method === 'insertAdjacentHTML' && second && kind(second) !== 'constant')
      report(call, 'insertAdjacentHTML');
    else if ((method === 'write' || method === 'writeln') && receiverText(callee) === 'document') {
      if (first && kind(first) !== 'constant') report(call, 'document.write');
    } else if (method === 'notify' && receiverText(callee) === 'RED') {
      if (first && kind(first) === 'text') report(call, 'RED.notify');
    } else if (INSERTIONS.has(method)) {
      const onJQuery = checker ? isJQuery(checker.getTypeAtLocation(callee.expression)) : true;
      // without types only what is plainly a string counts: a template or a concatenation
      const plainText = (a: ts.Expression) =>
        checker ? kind(a) === 'text' : ts.isTemplateExpression(a) || ts.isBinaryExpression(a);
      if (onJQuery && call.arguments.some(plainText)) report(call, `.${method}()`);
    }
  };

  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) visitCall(node);
    if (
      ts.isBinaryExpression(node) &&
      (node.operatorToken.kind === ts.SyntaxKind.EqualsToken ||
        node.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken) &&
      ts.isPropertyAccessExpression(node.left) &&
      HTML_PROPERTIES.has(node.left.name.text) &&
      kind(node.right) !== 'constant'
    ) {
      report(node, node.left.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The `<script type="text/javascript">` blocks of an HTML template, with the line each starts on (0-based). */
export function inlineScripts(html: string): { code: string; line: number }[] {
  const out: { code: string; line: number }[] = [];
  const pattern = /<script(?:\s+type="text\/javascript")?\s*>([\s\S]*?)<\/script>/g;
  for (let m = pattern.exec(html); m; m = pattern.exec(html)) {
    const start = m.index + m[0].indexOf('>') + 1;
    out.push({ code: m[1], line: html.slice(0, start).split('\n').length - 1 });
  }
  return out;
}
